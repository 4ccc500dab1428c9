// Issue 36: a run's synchronisation cost does not depend on how its shards
// are spread over threads and processes (ADR-0029). Counting, not timing:
// sync messages per event as the run reports them, and the same results.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <thread>

namespace kb::test {
namespace {

struct phold_figures {
  double sync_per_event = -1;
  uint64_t shards = 0;
  std::string digest;
};

phold_figures phold_of(const std::string& out) {
  phold_figures f;
  std::smatch m;
  if (std::regex_search(out, m, std::regex(R"(sync msgs/event\s+([0-9.]+))")))
    f.sync_per_event = std::stod(m[1]);
  if (std::regex_search(out, m, std::regex(R"(\nshards\s+([0-9]+))")))
    f.shards = std::stoull(m[1]);
  if (std::regex_search(out, m, std::regex(R"(digest\s+([0-9a-f]+))")))
    f.digest = m[1];
  return f;
}

// The issue's case (a tenth of its end time): 4 shards, 2 in each process,
// took 5.0 sync messages per event (null messages forwarding each other's
// small rises, and a stuck notice for every promise that did not free a
// shard); then questions and answers, 0.03-0.09 (ADR-0029). Now the two
// processes share this host's cores (a shard each on 2 cores) and their
// batches go through shared memory (ADR-0041).
TEST(sync_cost, phold_on_two_processes_of_two_threads) {
  const std::string args = "phold --lps 256 --events-per-lp 4 --remote 0.25 --lookahead-ps 1000 "
                           "--mean-ps 5000 --end-ps 2000000";
  const cli_result seq = run_kernbench(args + " --sequential");
  ASSERT_EQ(seq.exit_code, 0) << seq.err;
  const cli_result split = run_kernbench(args + " --threads 2 --procs 2");
  ASSERT_EQ(split.exit_code, 0) << split.err;
  const phold_figures s = phold_of(seq.out), f = phold_of(split.out);
  ASSERT_FALSE(s.digest.empty()) << seq.out;
  EXPECT_EQ(f.digest, s.digest);
  // One shard per thread of each process, and the processes share the
  // host's cores (shard_lanes): 2 shards in all on 2 cores, 4 on 4 or more.
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(f.shards, 2 * std::min<size_t>(2, std::max<size_t>(1, cores / 2))) << split.out;
  ASSERT_GE(f.sync_per_event, 0.0) << split.out;
  // The issue's bound. Promises and doorbells depend on when each thread
  // runs; with a shard per core they are few (0.0000-0.0001 here).
  EXPECT_LE(f.sync_per_event, 0.05) << split.out;
  EXPECT_NE(split.out.find("through shared memory"), std::string::npos) << split.out;
}

uint64_t ring_batches_of(const std::string& out) {
  std::smatch m;
  if (std::regex_search(out, m, std::regex(R"(cross-process\s+([0-9]+) batches from rank 0, ([0-9]+) through shared memory)")) &&
      m[1] != "0")
    return std::stoull(m[2]);
  return ~uint64_t{0};
}

// On one host the processes' batches go through shared memory; with
// KB_PEER_RINGS=0 through CAF's network layer. Same events, same digest.
TEST(sync_cost, phold_split_over_shared_memory_or_the_network_gives_the_same_digest) {
  const std::string args = "phold --lps 256 --events-per-lp 4 --remote 0.25 --lookahead-ps 1000 "
                           "--mean-ps 5000 --end-ps 2000000 --threads 1 --procs 2";
  const cli_result rings = run_kernbench(args);
  const cli_result net = run_kernbench(args, "KB_PEER_RINGS=0");
  ASSERT_EQ(rings.exit_code, 0) << rings.err;
  ASSERT_EQ(net.exit_code, 0) << net.err;
  const std::string d = phold_of(rings.out).digest;
  ASSERT_FALSE(d.empty()) << rings.out;
  EXPECT_EQ(phold_of(net.out).digest, d);
  // Every batch of rank 0 through the ring; none without it.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(rings.out, m, std::regex(R"(cross-process\s+([0-9]+) batches)")));
  EXPECT_EQ(ring_batches_of(rings.out), std::stoull(m[1])) << rings.out;
  EXPECT_EQ(ring_batches_of(net.out), 0u) << net.out;
}

struct engine_figures {
  uint64_t events = 0, sync = 0, shards = 0, windows = 0;
};

engine_figures engine_of(const std::string& out) {
  engine_figures f;
  std::smatch m;
  if (std::regex_search(out, m,
                        std::regex(R"(\nengine: ([0-9]+) events .* sync messages per event \(([0-9]+):.*, ([0-9]+) shard\(s\)\n)")))
    f = {std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3]), 0};
  if (std::regex_search(out, m, std::regex(R"(\nengine: [0-9]+ events in .*\), ([0-9]+) windows,)")))
    f.windows = std::stoull(m[1]);
  return f;
}

// The 1,024-PE machine with 16 cube shards on 2 threads took 2.7 sync
// messages per event (every cube in lockstep with its neighbours, 10 ns of
// UCIe lookahead apart); a process now runs at most one shard per thread
// (and core), with a note saying so, and the same JSON.
TEST(sync_cost, machine_with_more_shards_than_threads) {
  const std::string dir = temp_dir("sync_cost_machine");
  const std::string args = "run --topology " + source_dir() +
                           "/config/scale/4sip_4cube_64pe.yaml --pes all --M 256 --K 256 --N 256";
  const cli_result one = run_kernbench(args + " --threads 1 --json " + dir + "/one.json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const cli_result many =
    run_kernbench(args + " --threads 2 --shards 16 --json " + dir + "/many.json");
  ASSERT_EQ(many.exit_code, 0) << many.err;
  EXPECT_NE(many.err.find("note: --shards 16 on 2 thread(s)"), std::string::npos) << many.err;
  const engine_figures f = engine_of(many.out);
  ASSERT_GT(f.events, 0u) << many.out;
  EXPECT_GE(f.shards, 1u);
  EXPECT_LE(f.shards, 2u);
  EXPECT_LE(static_cast<double>(f.sync) / f.events, 0.05) << many.out;
  // Issue 31's check: windows stay large (718 events a window here).
  ASSERT_GT(f.windows, 0u) << many.out;
  EXPECT_GE(f.events / f.windows, 100u) << many.out;
  EXPECT_EQ(engine_of(one.out).events, f.events);
  EXPECT_EQ(test::json_results(slurp(dir + "/many.json")),
            test::json_results(slurp(dir + "/one.json")));
}

} // namespace
} // namespace kb::test
