// A run either writes complete output files or exits non-zero naming the
// file that failed (issue 15, item 3).

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;

// A small GEMM: one 128^3 tile, well under a second.
const std::string k_small = "run --M 128 --K 128 --N 128";

// Every writer on a full disk: output_safety_test.cpp.

// Found before the machine is built (issue 33): bad input, nothing runs.
TEST(output_error, a_chrome_trace_in_a_missing_directory_is_refused_before_the_run) {
  const std::string dir = test::temp_dir("trace_missing");
  const auto r = run_kernbench(k_small + " --trace " + dir + "/gone/t.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: cannot write trace file '" + dir +
                     "/gone/t.json': No such file or directory\n");
  EXPECT_EQ(r.out, "");
}

TEST(output_error, complete_files_are_written_and_no_temporary_is_left) {
  const std::string dir = test::temp_dir("outputs_ok");
  const auto r = run_kernbench(k_small + " --json " + dir + "/r.json --trace " + dir +
                               "/t.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"r.json", "t.json"}));
  EXPECT_GT(std::filesystem::file_size(dir + "/t.json"), 100u);
}

TEST(output_error, standard_output_on_a_full_disk_fails_the_run) {
  // Files of at most 512 bytes: the summary does not fit.
  const auto r = run_kernbench(k_small, test::file_size_limit(512));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "kernbench: error: cannot write standard output: File too large\n");
}

} // namespace
} // namespace kb
