// Streamed traces (issue 14, item 3): `run --trace-stream` writes the trace
// while the run goes; `trace convert` makes the same Chrome JSON as the
// in-memory `--trace X.json` of the same run, byte for byte; `trace stats`
// sums it up; a damaged stream is refused.

#include "runtime/trace/trace_stream_reader.hpp"
#include "tests/cli/cli_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>
#include <stdexcept>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <regex>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;

using test::slurp;

/// Peak RSS (KiB) of `kernbench args...`, run with stdout to /dev/null.
long peak_rss_kib(const std::vector<std::string>& args) {
  std::vector<std::string> all;
  std::vector<char*> argv = test::kernbench_argv(args, all);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!std::freopen("/dev/null", "w", stdout))
      ::_exit(127);
    // Under AddressSanitizer freed blocks wait in a quarantine (256 MiB by
    // default) and count as resident, so a run that frees as it goes (the
    // stream) would look as big as one that keeps everything. Without the
    // quarantine the sanitized peak compares like the plain one.
    const char* asan = std::getenv("ASAN_OPTIONS");
    const std::string opts = std::string(asan ? asan : "") +
                             ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0";
    ::setenv("ASAN_OPTIONS", opts.c_str(), 1);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return ru.ru_maxrss;
}

const std::string k_run = "run --quiet --pes 4 --M 256 --K 384 --N 256 --repeat 2";

TEST(trace_stream, a_converted_stream_is_the_in_memory_chrome_json) {
  const std::string dir = test::temp_dir("stream_identity");
  for (const std::string hops : {"", " --trace-hops"}) {
    SCOPED_TRACE(hops);
    auto r = run_kernbench(k_run + hops + " --trace " + dir + "/mem.json --trace-stream " + dir +
                           "/s.trace");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_kernbench("trace convert " + dir + "/s.trace " + dir + "/conv.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string mem = slurp(dir + "/mem.json");
    EXPECT_GT(mem.size(), 10000u);
    EXPECT_EQ(slurp(dir + "/conv.json"), mem);
    EXPECT_EQ(mem.find("\"ph\":\"s\"") != std::string::npos, !hops.empty()); // flows
    if (!hops.empty()) {
      // Receipts are named by their message kind (issue 32 item 2), flows
      // by the kind of the message that starts them, in both.
      for (const char* kind : {"tile_token", "mem_read", "mem_data", "credit", "tile_done",
                               "launch"})
        EXPECT_NE(mem.find(fmt::format("\"name\":\"{} from ", kind)), std::string::npos) << kind;
      for (const char* kind : {"tile_token", "mem_read", "credit", "launch"})
        EXPECT_NE(mem.find(fmt::format("\"name\":\"{}\"}}", kind)), std::string::npos) << kind;
      EXPECT_FALSE(std::regex_search(mem, std::regex("\"name\":\"k[0-9]"))) << "a kind by number";
      EXPECT_EQ(mem.find("\"name\":\"other"), std::string::npos);
    }
  }
}

TEST(trace_stream, a_capnp_trace_file_converts_to_the_same_json) {
  const std::string dir = test::temp_dir("capnp_identity");
  ASSERT_EQ(run_kernbench(k_run + " --trace " + dir + "/t.capnp").exit_code, 0);
  ASSERT_EQ(run_kernbench(k_run + " --trace " + dir + "/mem.json").exit_code, 0);
  ASSERT_EQ(run_kernbench("trace convert " + dir + "/t.capnp " + dir + "/c.json").exit_code, 0);
  EXPECT_EQ(slurp(dir + "/c.json"), slurp(dir + "/mem.json"));
}

TEST(trace_stream, stats_lists_every_busy_lane_and_the_longest_stages) {
  const std::string dir = test::temp_dir("stream_stats");
  ASSERT_EQ(run_kernbench(k_run + " --trace-stream " + dir + "/s.trace").exit_code, 0);
  const auto r = run_kernbench("trace stats " + dir + "/s.trace --top 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 4 PEs x (DMA read, DMA write, fetch, store, GEMM) lanes, and the 3
  // longest stages.
  size_t lanes = 0;
  for (size_t p = r.out.find("  sip0.cube0.pe"); p != std::string::npos;
       p = r.out.find("  sip0.cube0.pe", p + 1))
    ++lanes;
  EXPECT_EQ(lanes, 4u * 5 + 3) << r.out;
  EXPECT_NE(r.out.find("the 3 longest stages"), std::string::npos);
  EXPECT_NE(r.out.find("sip0.cube0.pe0.pe_gemm/gemm "), std::string::npos);  // the summary's lane name
  EXPECT_NE(r.out.find(" gemm c1 t0"), std::string::npos) << r.out;
}

TEST(trace_stream, a_truncated_stream_is_refused_and_nothing_is_written) {
  const std::string dir = test::temp_dir("stream_truncated");
  ASSERT_EQ(run_kernbench(k_run + " --trace-stream " + dir + "/s.trace").exit_code, 0);
  const std::string all = slurp(dir + "/s.trace");
  std::ofstream(dir + "/cut.trace", std::ios::binary) << all.substr(0, all.size() - 100);
  const auto r = run_kernbench("trace convert " + dir + "/cut.trace " + dir + "/o.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'" + dir + "/cut.trace' is not a complete kernbench trace"),
            std::string::npos)
    << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/o.json"));
}

TEST(trace_stream, a_stream_of_an_earlier_version_is_refused_by_name) {
  // Version 1 recorded receipts beside hops whose tails it lacks (ADR-0040).
  const std::string dir = test::temp_dir("stream_version");
  ASSERT_EQ(run_kernbench(k_run + " --trace-stream " + dir + "/s.trace").exit_code, 0);
  std::string all = slurp(dir + "/s.trace");
  const auto at = all.find("kernbench trace stream 2");
  ASSERT_NE(at, std::string::npos);
  all[at + std::string("kernbench trace stream ").size()] = '1';
  std::ofstream(dir + "/old.trace", std::ios::binary) << all;
  for (const std::string& cmd : {"trace convert " + dir + "/old.trace " + dir + "/o.json",
                                "trace stats " + dir + "/old.trace"}) {
    SCOPED_TRACE(cmd);
    const auto r = run_kernbench(cmd);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("'" + dir + "/old.trace': it is a 'kernbench trace stream 1', written by "
                         "an earlier kernbench; this one reads 'kernbench trace stream 2'"),
              std::string::npos)
      << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/o.json"));
}

TEST(trace_stream, a_refused_stream_leaves_no_file_open) {
  // The reader's constructor threw with the stream open: each refused file
  // kept a descriptor (fuzz_trace_stream ran out of them).
  const std::string dir = test::temp_dir("stream_fd");
  ASSERT_EQ(run_kernbench(k_run + " --trace-stream " + dir + "/s.trace").exit_code, 0);
  const std::string all = slurp(dir + "/s.trace");
  std::ofstream(dir + "/cut.trace", std::ios::binary) << all.substr(0, all.size() - 100);
  std::ofstream(dir + "/twice.trace", std::ios::binary) << all << all;
  auto open_files = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                         std::filesystem::directory_iterator{});
  };
  const auto before = open_files();
  for (const char* bad : {"/cut.trace", "/twice.trace"})
    for (int i = 0; i < 3; ++i)
      EXPECT_THROW(trace_reader{dir + bad}, std::runtime_error) << bad;
  EXPECT_EQ(open_files(), before);
  EXPECT_EQ(trace_reader{dir + "/s.trace"}.streamed(), true); // the whole one reads
}

// 450,000 trace records (a 4096x4096x2048 GEMM with every hop): streamed,
// the run needs no more memory than without a trace; held in memory until
// the end (--trace), 50 to 120 MiB more (it depends on which malloc arena
// the threads of a run got: 49 MiB measured on a loaded 2-core machine). Both bounds are relative to the run
// without a trace, so they hold in sanitized builds too (whose baseline is
// some 330 MiB, against 150 MiB plain).
TEST(trace_stream, streaming_a_large_trace_takes_no_more_memory_than_no_trace) {
  const std::string dir = test::temp_dir("stream_rss");
  const std::vector<std::string> run{"run", "--quiet", "--M", "4096", "--K", "4096", "--N", "2048"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = run;
    a.insert(a.end(), extra.begin(), extra.end());
    return peak_rss_kib(a);
  };
  const long none = with({});
  const long streamed = with({"--trace-hops", "--trace-stream", dir + "/s.trace"});
  const long in_memory = with({"--trace-hops", "--trace", dir + "/m.capnp"});
  EXPECT_LT(streamed, none + 20 * 1024) << "no trace " << none << " KiB";
  EXPECT_GT(in_memory, streamed + 30 * 1024) << "streamed " << streamed << " KiB";
  const auto r = run_kernbench("trace stats " + dir + "/s.trace --top 1");
  ASSERT_EQ(r.out.rfind("trace: ", 0), 0u) << r.out;
  EXPECT_GT(std::stoull(r.out.substr(7)), 400000u) << r.out; // the whole trace is there
}

TEST(trace_stream, a_split_run_cannot_stream) {
  const auto r = run_kernbench("run --quiet --topology " + test::source_dir() +
                               "/config/scale/2sip_2cube_4pe.yaml --procs 2 --trace-stream x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--trace-stream: not with --procs > 1"), std::string::npos) << r.err;
}

} // namespace
} // namespace kb
