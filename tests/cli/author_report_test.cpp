// Issue 62 item 3: a kernel author's report (docs/adr/0045-a-kernel-authors-
// report.md). A kernel run's default report stays within its line budget at
// 1, 16 and 1,024 PEs, whatever the commands; --per-command restores every
// command's line (and --per-pe every PE's figures); the critical path
// collapses its repeats; --per-command is refused for the built-in driver.

#include "runtime/report/author_report.hpp"
#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

/// The report's lines: stdout up to the kernel's own section.
size_t report_lines(const std::string& out, const std::string& kernel) {
  const std::string head = out.substr(0, out.find("\nkernel " + kernel + " ("));
  return static_cast<size_t>(std::count(head.begin(), head.end(), '\n')) + 1;
}

size_t command_lines(const std::string& out) {
  const std::regex line(R"(\n  sip[0-9]+\.cube[0-9]+\.pe[0-9]+ +cmd [0-9]+ )");
  return static_cast<size_t>(
    std::distance(std::sregex_iterator(out.begin(), out.end(), line), std::sregex_iterator()));
}

TEST(AuthorReport, StaysWithinItsBudgetAt1_16And1024Pes) {
  const std::string machines = test::source_dir() + "/config/";
  const struct {
    std::string args;
    size_t pes;
  } runs[] = {
    {"--pes 1", 1},
    {"--topology " + machines + "scale/2sip_2cube_4pe.yaml --pes all", 16},
    {"--topology " + machines + "scale/4sip_4cube_64pe.yaml --pes all --arg M=2048 --arg N=2048 "
     "--arg K=128 --arg block_m=64 --arg block_n=64",
     1024},
  };
  for (const auto& run : runs) {
    const auto r = run_kernbench("run --quiet --kernel gemm_pipelined " + run.args);
    ASSERT_EQ(r.exit_code, 0) << run.args << "\n" << r.err;
    EXPECT_THAT(r.out, HasSubstr(" on " + std::to_string(run.pes) + " PE(s), ")) << run.args;
    EXPECT_LE(report_lines(r.out, "gemm_pipelined"), author_report_lines) << r.out;
    EXPECT_EQ(command_lines(r.out), 0u) << run.args;
    EXPECT_THAT(r.out, HasSubstr("\nwhere it went on "));
    EXPECT_THAT(r.out, HasSubstr("\ncritical path: "));
    EXPECT_THAT(r.out, HasSubstr("\nbusiest unit lanes "));
    EXPECT_THAT(r.out, HasSubstr("\nthroughput\n"));
  }
}

TEST(AuthorReport, PerCommandRestoresEveryCommandsLine) {
  // 4 PEs of 104 commands each (the 512^3 GEMM in 128^2 blocks, K in 64s).
  const auto brief = run_kernbench("run --quiet --kernel gemm_pipelined --pes 4");
  ASSERT_EQ(brief.exit_code, 0) << brief.err;
  EXPECT_THAT(brief.out, HasSubstr("commands: 416 in all; every command's line: --per-command"));
  EXPECT_EQ(command_lines(brief.out), 0u);
  const auto all = run_kernbench("run --quiet --kernel gemm_pipelined --pes 4 --per-command");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(command_lines(all.out), 416u);
  // The whole critical path, one line a command, and each PE's kernel time.
  EXPECT_THAT(all.out, HasSubstr("the chain of commands that decided it\n"));
  EXPECT_THAT(all.out, ::testing::Not(HasSubstr("more commands of the chain")));
  EXPECT_THAT(all.out, HasSubstr("\n  sip0.cube0.pe3     start "));
  // --per-pe alone: every PE's figures, no command's line.
  const auto pes = run_kernbench("run --quiet --kernel gemm_pipelined --pes 4 --per-pe");
  ASSERT_EQ(pes.exit_code, 0) << pes.err;
  EXPECT_EQ(command_lines(pes.out), 0u);
  EXPECT_THAT(pes.out, HasSubstr("  (every command's line: --per-command)\n"));
  EXPECT_THAT(pes.out, HasSubstr("\n  sip0.cube0.pe3.pe_gemm/gemm "));
  // Same results: the JSON does not depend on what the text shows.
  const std::string dir = test::temp_dir("author_report");
  ASSERT_EQ(run_kernbench("run --quiet --kernel gemm_pipelined --pes 4 --json " + dir + "/a.json")
              .exit_code, 0);
  ASSERT_EQ(run_kernbench("run --quiet --kernel gemm_pipelined --pes 4 --per-command --json " +
                          dir + "/b.json").exit_code, 0);
  EXPECT_EQ(test::json_results(test::slurp(dir + "/a.json")),
            test::json_results(test::slurp(dir + "/b.json")));
}

TEST(AuthorReport, PerCommandIsRefusedForTheDriver) {
  const auto r = run_kernbench("run --quiet --M 64 --K 64 --N 64 --per-command");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err, HasSubstr("--per-command: only with --kernel or --program (the built-in "
                               "driver's report lists every command already)"));
}

// The critical path's repeats: [a b] x 3, then c, then d x 2.
TEST(AuthorReport, ThePathCollapsesRepeatsOfUpToEightCommands) {
  std::vector<command_stat> rows(8);
  const char* what[] = {"a", "b", "a", "b", "a", "b", "c", "d"};
  std::vector<path_step> steps;
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].id = i + 1;
    rows[i].what = what[i];
    rows[i].unit = 2;
  }
  rows.push_back(rows[7]); // a second d
  rows.back().id = 9;
  for (const auto& r : rows)
    steps.push_back({&r, "kernel"});
  const auto runs = collapse_path(steps);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].first, 0u);
  EXPECT_EQ(runs[0].period, 2u);
  EXPECT_EQ(runs[0].count, 3u);
  EXPECT_EQ(runs[1].first, 6u);
  EXPECT_EQ(runs[1].period * runs[1].count, 1u);
  EXPECT_EQ(runs[2].first, 7u);
  EXPECT_EQ(runs[2].period, 1u);
  EXPECT_EQ(runs[2].count, 2u);
  // The same text on another unit is another command.
  rows[2].unit = 3;
  const auto split = collapse_path(steps);
  EXPECT_EQ(split[0].period * split[0].count, 1u); // [a b] no longer repeats
  EXPECT_EQ(split.size(), 8u);                     // six singles, c, d x 2
  EXPECT_TRUE(collapse_path({}).empty());
}

} // namespace
} // namespace kb
