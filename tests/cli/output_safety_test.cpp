// Output files through links, FIFOs and pipes, and on a full disk (issue 35,
// item 1): a link stays and its target gets the content; a FIFO or pipe is
// streamed in place and never read; every writer leaves a complete file or
// none and exits 1 naming it. The full disk is RLIMIT_FSIZE on the run (no
// device is touched); links and FIFOs live in a fresh temporary directory.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace kb {
namespace {

namespace fs = std::filesystem;
using test::run_kernbench;
using test::slurp;

const std::string k_small = "run --quiet --M 128 --K 128 --N 128";

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Runs `command` through /bin/sh; its exit status (-1: killed by a signal).
int sh(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// -- links ------------------------------------------------------------------------

TEST(output_links, a_json_through_a_link_writes_its_target_and_keeps_the_link) {
  const std::string dir = test::temp_dir("out_link");
  fs::create_directory(dir + "/results");
  std::ofstream(dir + "/results/r.json") << "old";
  fs::create_symlink("results/r.json", dir + "/r.json");
  const auto r = run_kernbench(k_small + " --json " + dir + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::is_symlink(dir + "/r.json"));
  EXPECT_EQ(fs::read_symlink(dir + "/r.json"), "results/r.json");
  EXPECT_EQ(slurp(dir + "/results/r.json").substr(0, 1), "{");
  EXPECT_EQ(names_in(dir + "/results"), std::vector<std::string>{"r.json"});
}

TEST(output_links, a_dangling_link_into_a_missing_directory_fails_naming_the_option) {
  const std::string dir = test::temp_dir("out_dangling");
  fs::create_symlink("gone/r.csv", dir + "/r.csv");
  const auto r = run_kernbench(k_small + " --csv " + dir + "/r.csv");
  EXPECT_EQ(r.exit_code, 2); // found before the run (issue 33): bad input
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "kernbench: error: cannot write --csv file '" + dir + "/r.csv': it is a link "
                   "to '" + dir + "/gone/r.csv', whose directory does not exist\n");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"r.csv"});
}

TEST(output_links, two_outputs_on_one_file_are_refused_before_the_run_naming_both) {
  // Issue 67 item 7: --json X --trace X ran and left X holding the trace.
  const std::string dir = test::temp_dir("out_twice");
  std::ofstream(dir + "/keep.json") << "old";
  auto r = run_kernbench(k_small + " --json " + dir + "/keep.json --trace " + dir + "/keep.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "kernbench: error: trace file '" + dir + "/keep.json' is also the --json "
                   "file: each output needs its own path (the second written would replace "
                   "the first)\n");
  EXPECT_EQ(slurp(dir + "/keep.json"), "old");
  // Through a link, and spelt another way, it is the same file.
  fs::create_symlink("keep.json", dir + "/alias.json");
  r = run_kernbench(k_small + " --csv " + dir + "/alias.json --json " + dir + "/./keep.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--csv file '" + dir + "/alias.json' is also the --json file"),
            std::string::npos) << r.err;
  // --out's own files count too; the refused run removes the folders it
  // made for --out (still empty), and only those.
  r = run_kernbench(k_small + " --out " + dir + "/o/p --trace summary.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is also the --out summary.txt"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir + "/keep.json"), "old");
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"alias.json", "keep.json"}));
  fs::create_directory(dir + "/mine");
  r = run_kernbench(k_small + " --out " + dir + "/mine --trace machine.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(fs::is_directory(dir + "/mine")) << "a folder it did not make stays";
}

// -- FIFOs and pipes ------------------------------------------------------------

TEST(output_fifo, a_csv_to_a_fifo_read_by_cat_is_streamed_and_the_run_ends) {
  const std::string dir = test::temp_dir("out_fifo");
  const std::string fifo = dir + "/rows";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread cat([&] { sh("cat " + fifo + " > " + dir + "/got"); });
  // The run must not read the FIFO (it would wait for a writer forever).
  const auto r = run_kernbench(k_small + " --csv " + fifo, "timeout 120");
  if (r.exit_code != 0) { // let cat go: open the FIFO once for writing
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0)
      ::close(fd);
  }
  cat.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string got = slurp(dir + "/got");
  EXPECT_EQ(got.substr(0, 9), "topology,");
  EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), 2);
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(output_fifo, a_link_to_standard_output_on_a_pipe_gets_the_rows_in_place) {
  const std::string dir = test::temp_dir("out_stdout_link");
  fs::create_symlink("/proc/self/fd/1", dir + "/stdout");
  const int rc = sh("{ timeout 120 " KB_KERNBENCH_EXE " " + k_small + " --csv " + dir +
                    "/stdout 2>" + dir + "/err; echo $? >" + dir + "/rc; } | cat >" + dir +
                    "/got");
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(slurp(dir + "/rc"), "0\n") << slurp(dir + "/err");
  const std::string got = slurp(dir + "/got");
  EXPECT_NE(got.find("topology,set,program"), std::string::npos) << got;
  EXPECT_TRUE(fs::is_symlink(dir + "/stdout"));
}

// -- a full disk ------------------------------------------------------------------

struct writer_case {
  const char* name;
  std::string args;     ///< {D}: the directory
  std::string message;  ///< the error, without ": File too large"
};

std::string with_dir(std::string s, const std::string& dir) {
  for (size_t at; (at = s.find("{D}")) != std::string::npos;)
    s.replace(at, 3, dir);
  return s;
}

TEST(output_dash, json_or_csv_dash_is_standard_output_alone_and_the_report_goes_to_stderr) {
  // `--json -` made a file called "-" (issue 33).
  const std::string dir = test::temp_dir("dash");
  const std::string run = "run --M 128 --N 128 --K 128 ";
  auto r = test::run_kernbench(run + "--json -", "cd " + dir + " &&");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_EQ(r.out.substr(r.out.size() - 2), "}\n");
  EXPECT_NE(r.out.find("\"schema_version\""), std::string::npos);
  EXPECT_EQ(r.err.rfind("kernbench run: gemm 128x128x128", 0), 0u) << r.err; // the report
  r = test::run_kernbench(run + "--csv -", "cd " + dir + " &&");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("topology,set,program,", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2); // the header and the row
  EXPECT_FALSE(std::filesystem::exists(dir + "/-"));
  for (const std::string option : {"--trace", "--trace-stream", "--oplog"}) {
    r = test::run_kernbench(run + option + " -", "cd " + dir + " &&");
    EXPECT_EQ(r.exit_code, 2) << option;
    EXPECT_EQ(r.err, "kernbench: error: " + option +
                       " -: give a file name (only --json and --csv can go to standard output)\n");
  }
  r = test::run_kernbench(run + "--json - --csv -", "cd " + dir + " &&");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --json - --csv -: only one of them can go to standard "
                   "output; name a file for the other\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(dir + "/-"));
}

TEST(output_full_disk, every_writer_exits_1_naming_its_file_and_leaves_nothing) {
  const std::string src = test::temp_dir("out_full_src");
  ASSERT_EQ(run_kernbench(k_small + " --trace-stream " + src + "/s.trace").exit_code, 0);
  const std::string sweep =
    "sweep --quiet --param clock_period_ps=1000,500 --csv {D}/s.csv -- --M 128 --K 128 --N 128";
  const std::string err = "kernbench: error: cannot write ";
  const std::string problem = test::source_dir() + "/examples/schedule/gemm_mainloop.json";
  const std::vector<writer_case> cases{
    {"json", k_small + " --json {D}/r.json", err + "--json file '{D}/r.json'"},
    {"csv", k_small + " --csv {D}/r.csv", err + "--csv file '{D}/r.csv'"},
    {"chrome_trace", k_small + " --trace {D}/t.json", err + "trace file '{D}/t.json'"},
    {"capnp_trace", k_small + " --trace {D}/t.capnp", err + "trace file '{D}/t.capnp'"},
    {"trace_stream", k_small + " --trace-stream {D}/s.trace",
     err + "trace stream file '{D}/s.trace'"},
    {"schedule", "schedule " + problem + " --json {D}/s.json",
     "kernbench schedule: cannot write --json file '{D}/s.json'"},
    {"sweep", sweep, err + "--csv file '{D}/s.csv'"},
    {"trace_convert", "trace convert " + src + "/s.trace {D}/c.json",
     err + "JSON trace file '{D}/c.json'"},
  };
  for (const auto& w : cases) {
    const std::string dir = test::temp_dir(std::string("out_full_") + w.name);
    // Files of at most 512 bytes: every output here is longer.
    const auto r = test::run_kernbench_on_full_disk(with_dir(w.args, dir), 512);
    EXPECT_EQ(r.exit_code, 1) << w.name << ": " << r.err;
    EXPECT_EQ(r.err, with_dir(w.message, dir) + ": File too large\n") << w.name;
    EXPECT_TRUE(fs::is_empty(dir)) << w.name;
  }
}

} // namespace
} // namespace kb
