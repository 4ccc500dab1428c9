// Issue 36: a run's synchronisation cost does not depend on how its shards
// are spread over threads and processes (ADR-0029). Counting, not timing:
// sync messages per event as the run reports them, and the same results.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <regex>

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
// shard); now questions and answers, at most 0.05.
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
  EXPECT_EQ(f.shards, 4u) << split.out; // split runs: one per thread of each process
  ASSERT_GE(f.sync_per_event, 0.0) << split.out;
  // How many promises and yields the shards ask for depends on when each
  // thread runs (they are sent on demand, ADR-0029): 12 runs on 2 cores
  // gave 0.029-0.085 per event, and a loaded machine more. A collapse
  // into lockstep costs one or more per event; the bound catches that, not
  // the threads' timing (0.05 failed about one run in three).
  EXPECT_LE(f.sync_per_event, 0.5) << split.out;
}

struct engine_figures {
  uint64_t events = 0, sync = 0, shards = 0;
};

engine_figures engine_of(const std::string& out) {
  engine_figures f;
  std::smatch m;
  if (std::regex_search(out, m,
                        std::regex(R"(\nengine: ([0-9]+) events .* sync messages per event \(([0-9]+):.*, ([0-9]+) shard\(s\)\n)")))
    f = {std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3])};
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
  EXPECT_EQ(engine_of(one.out).events, f.events);
  EXPECT_EQ(test::json_results(slurp(dir + "/many.json")),
            test::json_results(slurp(dir + "/one.json")));
}

} // namespace
} // namespace kb::test
