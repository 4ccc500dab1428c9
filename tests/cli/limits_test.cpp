// Options and config values that would overflow time or memory are refused
// up front with the limit and why; the largest accepted values give the
// right result (issue 15, items 1 and 2).

#include "runtime/phold/phold_run.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <utility>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;

const std::string k_limit = "the limit of 281474976710656 ps (2^48 ps, about 281 s of virtual "
                            "time; time sums must fit in 64 bits)";

// -- overflow -----------------------------------------------------------------

TEST(limits, a_lookahead_beyond_the_time_limit_is_refused) {
  const auto r = run_kernbench("phold --lookahead-ps 4611686018427387904");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --lookahead-ps 4611686018427387904: exceeds " + k_limit +
                     "\n");
}

TEST(limits, an_end_time_beyond_the_time_limit_is_refused_in_the_yardstick_too) {
  const auto r = run_kernbench("phold --sequential --end-ps 18446744073709551615");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --end-ps 18446744073709551615: exceeds " + k_limit + "\n");
}

TEST(limits, the_largest_times_give_the_engine_the_yardsticks_result) {
  // Every time at the limit: sums reach ~2^53.5 ps; nothing may wrap.
  phold::params p;
  p.lps = 8;
  p.events_per_lp = 4;
  p.remote = 0.5;
  p.lookahead_ps = max_time_ps / 64;
  p.mean_ps = max_time_ps;
  p.end_ps = max_time_ps;
  const auto seq = phold::run_sequential(p);
  const auto act = phold::run_actors(p, 2);
  ASSERT_EQ(act.error, "");
  EXPECT_GT(seq.committed, 8u);
  EXPECT_EQ(act.committed, seq.committed);
  EXPECT_EQ(act.digest, seq.digest);
}

TEST(limits, a_stage_longer_than_the_time_limit_is_refused_before_the_run) {
  // 2^38 ps cycles: each config value fits, but a 128^3 tile's 2112 GEMM
  // cycles take 580542139465728 ps.
  const std::string dir = test::temp_dir("slow_clock");
  std::ifstream in(test::source_dir() + "/config/topology.yaml");
  std::stringstream text;
  text << in.rdbuf();
  const std::string topo = dir + "/slow.yaml";
  std::ofstream(topo) << std::regex_replace(text.str(), std::regex("\nclock_period_ps: 1000\n"),
                                            "\nclock_period_ps: 274877906944\n");
  // On 2 threads the check waits for the routes built beside the machine:
  // the same refusal, before any node is built.
  for (const char* threads : {"1", "2"}) {
    const auto r =
      run_kernbench("run --M 128 --K 128 --N 128 --threads " + std::string(threads) +
                    " --topology " + topo);
    EXPECT_EQ(r.exit_code, 2) << threads;
    EXPECT_EQ(r.err, "kernbench: error: --tile 128 128 128: one gemm stage takes 580542139465728 "
                     "ps on this machine (" + topo + "), which exceeds " + k_limit + "\n")
      << threads;
  }
}

TEST(limits, a_stage_past_the_predictors_cycle_limit_is_refused_naming_the_set_key) {
  // Each value fits in 2^48 ps, but the II predictor schedules in 32-bit
  // cycles: these ran the whole simulation, then failed with "no schedule
  // found for II 4224..5766" and no summary.
  const std::string topo = test::source_dir() + "/config/topology.yaml";
  const std::vector<std::pair<std::string, std::string>> cases{
    {"cube.xbar.latency_ns=2147483648", "dma_read stage takes 4294967536"},
    {"cube.pe_template.pe_gemm.mac_cols=4294967295", "gemm stage takes 4294967839"}};
  for (const auto& [set, stage] : cases)
    for (const char* threads : {"1", "2"}) {
      const auto r = run_kernbench("run --M 128 --K 128 --N 128 --threads " +
                                   std::string(threads) + " --set " + set);
      EXPECT_EQ(r.exit_code, 2) << set << " " << threads;
      EXPECT_EQ(r.err, "kernbench: error: --tile 128 128 128: one " + stage + " cycles on this "
                       "machine (" + topo + " with --set " + set + "), which exceeds the limit "
                       "of 2147483647 cycles (2^31 - 1) for a stage of the II predictor's "
                       "schedule\n")
        << set << " " << threads;
      EXPECT_EQ(r.out, "") << set << " " << threads;
    }
}

TEST(limits, a_body_past_the_predictors_cycle_limit_is_not_predicted_and_the_run_ends) {
  // Each stage fits (about 2 * 10^9 cycles), eight tiles of them do not.
  const auto r = run_kernbench(
    "run --M 256 --K 1024 --N 256 --set cube.xbar.latency_ns=1000000000");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("body   8 tiles  II   not modelled  simulated 32000003840 ns"),
            std::string::npos)
    << r.out;
}

// Ten ops in a recurrence of 2^31 - 1 cycles each: its MII, 21,474,836,470
// cycles, wrapped to 32 bits and crashed the modulo generator.
const std::string k_long_recurrence = R"({
  "resources": {"alu": 1},
  "ops": [
    {"name": "o0", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o1", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o2", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o3", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o4", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o5", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o6", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o7", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o8", "latency": 2147483647, "reservation": [{"alu": 1}]},
    {"name": "o9", "latency": 2147483647, "reservation": [{"alu": 1}]}
  ],
  "edges": [
    {"from": "o0", "to": "o1"}, {"from": "o1", "to": "o2"}, {"from": "o2", "to": "o3"},
    {"from": "o3", "to": "o4"}, {"from": "o4", "to": "o5"}, {"from": "o5", "to": "o6"},
    {"from": "o6", "to": "o7"}, {"from": "o7", "to": "o8"}, {"from": "o8", "to": "o9"},
    {"from": "o9", "to": "o0", "distance": 1}
  ]
}
)";

TEST(limits, a_schedule_whose_ii_cannot_be_represented_is_refused_by_every_strategy) {
  const std::string dir = test::temp_dir("long_recurrence");
  const std::string file = dir + "/loop.json";
  std::ofstream(file) << k_long_recurrence;
  for (const char* strategy : {"auto", "serial", "cost"}) {
    const auto r = run_kernbench("schedule " + file + " --strategy " + strategy + " --json " +
                                 dir + "/s.json");
    EXPECT_EQ(r.exit_code, 2) << strategy;
    EXPECT_EQ(r.err, "kernbench schedule: " + file + ": the loop body takes 21474836470 cycles "
                     "run op after op (each op for the longest of 1, its reservation and its "
                     "outgoing latencies), over the limit of 2147483647 cycles (2^31 - 1) for an "
                     "II or a schedule length\n")
      << strategy;
    EXPECT_EQ(r.out, "") << strategy;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.json"));
}

// -- NaN and infinities --------------------------------------------------------

TEST(limits, a_nan_probability_is_refused) {
  const auto r = run_kernbench("phold --remote nan");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --remote nan: must be a probability within [0, 1]\n");
}

TEST(limits, an_infinite_probability_is_refused) {
  const auto r = run_kernbench("phold --sequential --remote inf");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --remote inf: must be a probability within [0, 1]\n");
}

// -- ranges -----------------------------------------------------------------------

TEST(limits, too_many_lps_names_the_limit_and_why) {
  const auto r = run_kernbench("phold --lps 2000000");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --lps 2000000: more than the limit of 1048576 (every LP "
                   "is an actor, and every shard keeps a few words per LP)\n");
}

TEST(limits, too_many_shards_names_the_limit) {
  const auto r = run_kernbench("phold --shards 5000");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "--shards: Value 5000 not in range 0 to 1024\n"
                   "Run with --help for more information.\n");
}

TEST(limits, more_processes_than_lps_is_refused) {
  const auto r = run_kernbench("phold --lps 2 --procs 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --procs 3: more processes than LPs (--lps 2)\n");
}

TEST(limits, a_time_key_beyond_the_limit_in_a_topology_names_file_line_and_key) {
  const std::string dir = test::temp_dir("huge_latency");
  std::ifstream in(test::source_dir() + "/config/topology.yaml");
  std::stringstream text;
  text << in.rdbuf();
  const std::string topo = dir + "/t.yaml";
  std::ofstream(topo) << std::regex_replace(text.str(), std::regex("\nclock_period_ps: 1000\n"),
                                            "\nclock_period_ps: 4611686018427387904\n");
  const auto r = run_kernbench("run --topology " + topo);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: " + topo +
                     ":40: clock_period_ps: 4611686018427387904 ps exceeds " + k_limit + "\n");
}

// -- memory budget --------------------------------------------------------------

TEST(limits, a_phold_mesh_over_the_memory_budget_is_refused_with_the_estimate) {
  // 65536 LPs x 16 events x 128 B + 65536 LPs x 5120 B = 469,762,048 B.
  const auto r = run_kernbench("phold --lps 65536", "KB_MEMORY_BUDGET_MB=64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --lps 65536 --events-per-lp 16 (1048576 initial events) "
                   "needs about 448.0 MiB of memory, more than the budget of 64.0 MiB "
                   "(KB_MEMORY_BUDGET_MB)\n");
}

TEST(limits, tiny_tiles_on_a_large_gemm_are_refused_with_the_estimate) {
  const auto r = run_kernbench("run --tile 1 1 1", "KB_MEMORY_BUDGET_MB=1024");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --M 1024 --K 1024 --N 1024 --tile 1 1 1 --repeat 1 "
                   "--pes 1 (1073741824 tiles) needs about 64.0 GiB of memory, more than the "
                   "budget of 1.0 GiB (KB_MEMORY_BUDGET_MB)\n");
}

TEST(limits, the_default_budget_is_three_quarters_of_physical_memory) {
  const auto r = run_kernbench("run --tile 1 1 1 --repeat 1000000 --pes 4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(3/4 of physical memory; set KB_MEMORY_BUDGET_MB to change it)"),
            std::string::npos)
    << r.err;
}

// -- threads ------------------------------------------------------------------

/// Runs `kernbench args` as user nobody (the process limit does not hold
/// for root) with at most `n` processes and threads of that user
/// (RLIMIT_NPROC; prlimit and setpriv are util-linux's), from a copy of the executable that user can reach.
test::cli_result run_as_nobody_with_at_most(unsigned n, const std::string& args) {
  namespace fs = std::filesystem;
  const std::string dir = test::temp_dir("nproc");
  const fs::path exe = fs::path(dir) / "kernbench";
  std::error_code ec;
  fs::create_hard_link(KB_KERNBENCH_EXE, exe, ec);
  if (ec)
    fs::copy_file(KB_KERNBENCH_EXE, exe);
  for (fs::path p = dir; p != p.root_path(); p = p.parent_path())
    fs::permissions(p, fs::perms::others_exec, fs::perm_options::add);
  const std::string out = dir + "/out", err = dir + "/err";
  const std::string cmd = "ASAN_OPTIONS=detect_leaks=0 exec prlimit --nproc=" +
                          std::to_string(n) +
                          " setpriv --reuid=65534 --regid=65534 --clear-groups " +
                          exe.string() + " " + args + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  test::cli_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test::slurp(out);
  r.err = test::slurp(err);
  fs::remove_all(dir);
  return r;
}

TEST(limits, threads_that_cannot_be_started_are_an_error_naming_the_option) {
  // It used to abort ("terminate called without an active exception") or
  // stall at 0 us (issue 35).
  for (const std::string cmd : {"run --threads 64", "phold --lps 64 --threads 64",
                                "run --kernel softmax --verify --phase2-workers 64"}) {
    const auto r = run_as_nobody_with_at_most(24, cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.err;
    const std::string option = cmd.substr(cmd.rfind("--"));
    const std::string head = "kernbench: error: " + option + ": cannot start 68 threads here (64 "
                             "and 4 of kernbench's own; Resource temporarily unavailable after ";
    EXPECT_EQ(r.err.substr(0, head.size()), head) << cmd;
    EXPECT_NE(r.err.find("(ulimit -u, a container's pids limit) or memory does not allow them; "
                         "ask for fewer\n"),
              std::string::npos)
      << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
  // The same limit lets a run with few threads through.
  const auto ok = run_as_nobody_with_at_most(24, "run --threads 2 --M 256 --N 256 --K 256");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

} // namespace
} // namespace kb
