// PHOLD determinism: the digest of the final state is the same for any
// thread count, shard count and process count, and equals the sequential
// yardstick's.

#include "runtime/engine/partition.hpp"
#include "runtime/phold/phold_run.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

namespace kb {
namespace {

phold::params small() {
  phold::params p;
  p.lps = 64;
  p.events_per_lp = 8;
  p.remote = 0.25;
  p.lookahead_ps = 1000;
  p.mean_ps = 1000;
  p.end_ps = 200000;
  return p;
}

TEST(Phold, SequentialYardstickIsRepeatable) {
  auto a = phold::run_sequential(small());
  auto b = phold::run_sequential(small());
  EXPECT_EQ(a.digest, b.digest);
  EXPECT_EQ(a.committed, b.committed);
  EXPECT_GT(a.committed, 64u * 8 * 50); // ~100 events per initial event
}

// Exactly as many shards as asked, even 16 on one thread: the protocol
// between shards (promises, questions, LBTS rounds) in every mix.
TEST(Phold, DigestIsIndependentOfThreadsAndShards) {
  const auto seq = phold::run_sequential(small());
  for (delivery_mode d : {delivery_mode::mailbox, delivery_mode::direct}) {
    for (size_t threads : {1u, 2u, 4u}) {
      for (uint32_t shards : {0u, 1u, 3u, 16u}) {
        auto o = phold::run_actors(small(), threads, {}, shards, d, true);
        ASSERT_EQ(o.error, "");
        EXPECT_EQ(o.digest, seq.digest) << "threads=" << threads << " shards=" << shards;
        EXPECT_EQ(o.committed, seq.committed);
        EXPECT_EQ(o.remote_msgs, seq.remote_msgs);
        EXPECT_EQ(o.hub.shards, shards ? shards : threads);
      }
    }
  }
}

// Without exact_shards a process runs at most one shard per thread (and,
// alone, per core): 16 asked on 2 threads run as 2 at most (ADR-0029),
// with the same results.
TEST(Phold, ShardsBeyondTheThreadsRunOnePerThread) {
  const auto seq = phold::run_sequential(small());
  auto o = phold::run_actors(small(), 2, {}, 16, delivery_mode::direct);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.hub.shards, shards_to_run(16, shard_lanes(2, 1)));
  EXPECT_LE(o.hub.shards, 2u);
  EXPECT_EQ(o.digest, seq.digest);
  EXPECT_EQ(shard_lanes(2, 2), 2u); // split: the threads only (hosts differ)
  EXPECT_EQ(shards_to_run(16, 2), 2u);
  EXPECT_EQ(shards_to_run(3, 4), 3u);
  EXPECT_EQ(shards_to_run(0, 4), 0u);
  EXPECT_EQ(shards_note(16, 2, 2),
            "note: --shards 16 on 2 thread(s): each process runs 2 shard(s) (shards that "
            "share a thread or a core only add synchronisation; results never depend on it)");
  EXPECT_EQ(shards_note(2, 2, 2), "");
  // Split over processes of this host (--procs): they share its cores.
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(shard_lanes(64, 2, true), std::max<size_t>(1, cores / 2));
  EXPECT_EQ(shard_lanes(64, 1, true), cores);
  EXPECT_EQ(shard_lanes(1, 2, true), 1u);
  EXPECT_EQ(shard_lanes(2, 2 * 1024, true), 1u); // more processes than cores: one each
  if (cores / 2 < 64) {
    EXPECT_EQ(shards_note(64, 64, 2, true),
              fmt::format("note: --shards 64 on 64 thread(s) and {} core(s) shared by 2 "
                          "processes: each process runs {} shard(s) (shards that share a thread "
                          "or a core only add synchronisation; results never depend on it)",
                          cores, std::max<size_t>(1, cores / 2)));
  }
}

TEST(Phold, SyncMessagesStayBelowOnePerEvent) {
  auto p = small();
  p.events_per_lp = 16;
  auto o = phold::run_actors(p, 1);
  ASSERT_EQ(o.error, "");
  EXPECT_LT(o.hub.sync_msgs(), o.committed);
}

TEST(Phold, AllRemoteAndAllLocalExtremes) {
  for (double remote : {0.0, 1.0}) {
    auto p = small();
    p.remote = remote;
    auto seq = phold::run_sequential(p);
    auto act = phold::run_actors(p, 2);
    EXPECT_EQ(act.digest, seq.digest) << "remote=" << remote;
    if (remote == 0.0) {
      EXPECT_EQ(seq.remote_msgs, 0u);
    }
  }
}

TEST(Phold, ZeroLookaheadIsRejected) {
  auto p = small();
  p.lookahead_ps = 0;
  EXPECT_THROW(phold::run_actors(p, 1), std::invalid_argument);
}

/// `kernbench phold args`, its standard output and error. `join_timeout_s`:
/// how long shard 0 waits for the other processes to join (the default 60 s
/// unless a test waits for the timeout itself: under ASan on a loaded
/// machine a worker took more than 2 s to start, and a split run failed).
std::string run_cli(const std::string& args, int join_timeout_s = 60) {
  std::string cmd = "KB_JOIN_TIMEOUT_S=" + std::to_string(join_timeout_s) + " ";
  cmd.append(KB_KERNBENCH_EXE);
  cmd.append(" phold ").append(args).append(" 2>&1");
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  std::array<char, 512> buf{};
  while (pipe && fgets(buf.data(), buf.size(), pipe.get()))
    out += buf.data();
  return out;
}

std::string digest_line(const std::string& out) {
  auto pos = out.find("digest");
  return pos == std::string::npos ? out : out.substr(pos, out.find('\n', pos) - pos);
}

// Two processes on loopback (caf::io) give the single-process digest.
TEST(Phold, TwoProcessesGiveTheSameDigest) {
  const std::string args = "--lps 64 --events-per-lp 8 --end-ps 200000";
  const std::string seq = digest_line(run_cli(args + " --sequential"));
  ASSERT_NE(seq.find("digest"), std::string::npos) << seq;
  EXPECT_EQ(digest_line(run_cli(args + " --threads 1 --procs 2")), seq);
  EXPECT_EQ(digest_line(run_cli(args + " --threads 2 --procs 2")), seq);
  EXPECT_EQ(digest_line(run_cli(args + " --threads 1 --procs 3")), seq);
}

// Issue 16: 16,384 LPs (one link class, no link per pair) run, and their
// digest is the sequential yardstick's for 1, 2 and 4 threads, both
// deliveries and 2 processes. Few events per LP keep it quick under ASan.
TEST(Phold, SixteenThousandLpsAgreeEverywhere) {
  phold::params p = small();
  p.lps = 16384;
  p.events_per_lp = 2;
  p.end_ps = 20000;
  const auto seq = phold::run_sequential(p);
  EXPECT_GT(seq.committed, 16384u * 2 * 5);
  for (size_t threads : {1u, 2u, 4u}) {
    auto o = phold::run_actors(p, threads);
    ASSERT_EQ(o.error, "");
    EXPECT_EQ(o.digest, seq.digest) << "threads=" << threads;
    EXPECT_EQ(o.committed, seq.committed);
  }
  const std::string args = "--lps 16384 --events-per-lp 2 --end-ps 20000";
  const std::string cli_seq = digest_line(run_cli(args + " --sequential"));
  ASSERT_NE(cli_seq.find("digest"), std::string::npos) << cli_seq;
  EXPECT_EQ(digest_line(run_cli(args + " --threads 2 --delivery direct")), cli_seq);
  EXPECT_EQ(digest_line(run_cli(args + " --threads 1 --procs 2")), cli_seq);
}

// A worker that never joins is reported, not waited on forever.
TEST(Phold, MissingWorkerIsReportedAfterTheJoinTimeout) {
  const std::string out = run_cli("--lps 8 --end-ps 10000 --procs 2 --no-spawn", 2);
  EXPECT_NE(out.find("kernbench phold: run failed: shard(s) 1 did not join within 2 s"), std::string::npos)
    << out;
}

} // namespace
} // namespace kb
