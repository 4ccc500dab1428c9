// Issue 32 item 5: a picture of a trace from the project's own output.
// scripts/trace_timeline.py draws a kernbench Chrome/Perfetto trace as one
// row per unit lane and one bar per stage; the SVG keeps its text, so the
// rows, the legend and the axis are checked by reading it. Bad input exits
// 2 naming the file or option.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <string>

namespace kb {
namespace {

using test::run_kernbench;
using test::slurp;

struct script_result {
  int exit_code = -1;
  std::string err;
};

script_result timeline(const std::string& args, const std::string& dir) {
  // /usr/bin/python3 has matplotlib (scripts/setup.sh installs it).
  const std::string cmd = "/usr/bin/python3 " + test::source_dir() +
                          "/scripts/trace_timeline.py " + args + " >" + dir + "/tl.out 2>" +
                          dir + "/tl.err";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir + "/tl.err")};
}

bool has_text(const std::string& svg, const std::string& t) {
  return svg.find(">" + t + "</text>") != std::string::npos;
}

TEST(trace_timeline, one_row_per_lane_of_the_pes_asked_for_with_its_stages) {
  const std::string dir = test::temp_dir("timeline");
  const auto run = run_kernbench("run --quiet --pes 4 --M 256 --K 256 --N 256 --tile 64 64 64 "
                                 "--trace " + dir + "/t.json.gz");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto r = timeline(dir + "/t.json.gz " + dir + "/t.svg --tracks 'sip0.cube0.pe[01].*' "
                          "--window 0us:5us --title 'two PEs'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = slurp(dir + "/t.svg");
  for (const char* row : {"sip0.cube0.pe0.pe_dma/read", "sip0.cube0.pe0.pe_gemm/gemm",
                          "sip0.cube0.pe1.pe_fetch_store/fetch", "sip0.cube0.pe1.pe_dma/write"})
    EXPECT_TRUE(has_text(svg, row)) << row;
  EXPECT_FALSE(has_text(svg, "sip0.cube0.pe2.pe_dma/read")) << "a row not asked for";
  for (const char* t : {"dma_read", "fetch", "gemm", "simulated time (µs)", "two PEs"})
    EXPECT_TRUE(has_text(svg, t)) << t;
  // A PNG of the whole trace too.
  const auto png = timeline(dir + "/t.json.gz " + dir + "/t.png", dir);
  ASSERT_EQ(png.exit_code, 0) << png.err;
  EXPECT_EQ(slurp(dir + "/t.png").compare(0, 8, "\x89PNG\r\n\x1a\n"), 0);
}

TEST(trace_timeline, bad_input_exits_2_naming_it) {
  const std::string dir = test::temp_dir("timeline_bad");
  ASSERT_EQ(run_kernbench("run --quiet --pes 1 --M 128 --K 128 --N 128 --trace-stream " + dir +
                          "/t.trace --trace " + dir + "/t.json").exit_code, 0);
  const auto stream = timeline(dir + "/t.trace " + dir + "/x.png", dir);
  EXPECT_EQ(stream.exit_code, 2);
  EXPECT_NE(stream.err.find("t.trace: not a Chrome/Perfetto JSON trace"), std::string::npos)
    << stream.err;
  EXPECT_NE(stream.err.find("kernbench trace convert"), std::string::npos) << stream.err;
  const auto missing = timeline(dir + "/none.json " + dir + "/x.png", dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.json: no such file"), std::string::npos) << missing.err;
  const auto window = timeline(dir + "/t.json " + dir + "/x.png --window 5us:1us", dir);
  EXPECT_EQ(window.exit_code, 2);
  EXPECT_NE(window.err.find("T1 must be after T0"), std::string::npos) << window.err;
  const auto rows = timeline(dir + "/t.json " + dir + "/x.png --tracks 'nosuch*'", dir);
  EXPECT_EQ(rows.exit_code, 2);
  EXPECT_NE(rows.err.find("no stage slices on the rows asked for"), std::string::npos)
    << rows.err;
  const auto format = timeline(dir + "/t.json " + dir + "/x.gif", dir);
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_NE(format.err.find("x.gif: give a .png, .svg or .pdf file"), std::string::npos)
    << format.err;
}

} // namespace
} // namespace kb
