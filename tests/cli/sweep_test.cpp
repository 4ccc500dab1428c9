// `kernbench sweep` (issue 14, item 1): the cross product of the parameters,
// one CSV row per point, a failed point is a row with its error while the
// others run, and a PNG/SVG plot made by scripts/plot_sweep.py.

#include "runtime/cli/run_command.hpp"
#include "runtime/cli/sweep_points.hpp"
#include "runtime/report/csv_row.hpp"
#include "tests/cli/cli_support.hpp"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);)
    rows.push_back(csv_split(line));
  return rows;
}

size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name)
      return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

std::string head_bytes(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

TEST(sweep_points, the_cross_product_maps_keys_to_run_options_or_set) {
  CLI::App app;
  int unused = 0;
  const CLI::App* run = add_run_command(app, unused);
  const std::vector<sweep_axis> axes{parse_axis("M=256,512", *run),
                                     parse_axis("tile=64x64x64,128x128x128", *run),
                                     parse_axis("cube.pe_template.pe_gemm.mac_rows=16,32", *run)};
  EXPECT_EQ(axes[0].run_option, "--M");
  EXPECT_EQ(axes[1].option_arity, 3u);
  EXPECT_EQ(axes[2].run_option, "");
  ASSERT_EQ(point_count(axes), 8u);
  EXPECT_EQ(point_values(axes, 5), (std::vector<std::string>{"512", "64x64x64", "32"}));
  EXPECT_EQ(point_args(axes, point_values(axes, 5), {"--K", "64"}),
            (std::vector<std::string>{"run", "--K", "64", "--M", "512", "--tile", "64", "64",
                                      "64", "--set", "cube.pe_template.pe_gemm.mac_rows=32"}));
  EXPECT_THROW(parse_axis("M", *run), std::invalid_argument);
  EXPECT_THROW(parse_axis("M=1,,2", *run), std::invalid_argument);
  EXPECT_THROW(parse_axis("tile=1x2x3x4", *run), std::invalid_argument);
  EXPECT_THROW(check_axes({axes[0], axes[0]}, {}), std::invalid_argument);
  EXPECT_THROW(check_axes({axes[0]}, {"--M", "4"}), std::invalid_argument);
  EXPECT_THROW(check_axes({axes[2]}, {"--json", "x.json"}), std::invalid_argument);
}

TEST(sweep_points, arg_keys_are_kernel_arguments_and_kernel_is_the_run_option) {
  CLI::App app;
  int unused = 0;
  const CLI::App* run = add_run_command(app, unused);
  const std::vector<sweep_axis> axes{parse_axis("kernel=gemm,softmax", *run),
                                     parse_axis("arg.block_m=64,128", *run)};
  EXPECT_EQ(axes[0].run_option, "--kernel");
  EXPECT_EQ(axes[1].run_option, "--arg");
  EXPECT_EQ(axes[1].kernel_arg, "block_m");
  EXPECT_EQ(point_args(axes, point_values(axes, 3), {"--pes", "2"}),
            (std::vector<std::string>{"run", "--pes", "2", "--kernel", "softmax", "--arg",
                                      "block_m=128"}));
  EXPECT_THROW(parse_axis("arg.=1", *run), std::invalid_argument);
  EXPECT_THROW(check_axes({axes[1]}, {"--arg", "block_m=32"}), std::invalid_argument);
  EXPECT_THROW(check_axes({axes[1]}, {"--arg=block_m=32"}), std::invalid_argument);
  EXPECT_NO_THROW(check_axes({axes[1]}, {"--arg", "block_n=32"}));
}

// Issue 27 item 3: a sweep over two kernel arguments writes one row per
// point, each a kernel run with the kernel's figures.
TEST(sweep, a_sweep_over_two_kernel_arguments_writes_its_rows) {
  const std::string dir = test::temp_dir("sweep_kernel");
  const auto r = run_kernbench(
    "sweep --quiet --jobs 2 --param arg.block_m=64,128 --param arg.tile=32,64 --csv " + dir +
    "/k.csv -- --kernel gemm --arg M=128 --arg K=128 --arg N=128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_csv(dir + "/k.csv");
  ASSERT_EQ(rows.size(), 5u);
  const auto& h = rows[0];
  EXPECT_EQ(h[0], "arg.block_m");
  EXPECT_EQ(h[1], "arg.tile");
  const size_t status = column(h, "status"), program = column(h, "program"),
               pes = column(h, "pes"), flops = column(h, "flops"),
               latency = column(h, "max_latency_ps");
  const std::vector<std::vector<std::string>> points{
    {"64", "32"}, {"64", "64"}, {"128", "32"}, {"128", "64"}};
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), h.size());
    EXPECT_EQ(rows[i][0], points[i - 1][0]);
    EXPECT_EQ(rows[i][1], points[i - 1][1]);
    EXPECT_EQ(rows[i][status], "ok");
    EXPECT_EQ(rows[i][program], "kernel gemm");
    // 128 rows of C in blocks of block_m: 2 programs (one PE each) or 1.
    EXPECT_EQ(rows[i][pes], rows[i][0] == "64" ? "2" : "1");
    EXPECT_EQ(rows[i][flops], std::to_string(2ull * 128 * 128 * 128));
  }
  // Two PEs finish the same work sooner than one.
  EXPECT_LT(std::stoull(rows[1][latency]), std::stoull(rows[3][latency]));
}

TEST(sweep, six_points_over_two_parameters_write_six_rows_and_a_plot) {
  const std::string dir = test::temp_dir("sweep6");
  const auto r = run_kernbench(
    "sweep --jobs 2 --param M=128,256,512 --param cube.pe_template.pe_gemm.mac_rows=16,32 "
    "--csv " + dir + "/s.csv --plot achieved_flop_per_s:M -- --K 256 --N 256");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_csv(dir + "/s.csv");
  ASSERT_EQ(rows.size(), 7u);
  const auto& h = rows[0];
  EXPECT_EQ(h[0], "M");
  EXPECT_EQ(h[1], "cube.pe_template.pe_gemm.mac_rows");
  const size_t status = column(h, "status"), flops = column(h, "achieved_flop_per_s"),
               program = column(h, "program"), peak = column(h, "peak_flop_per_s");
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), h.size());
    EXPECT_EQ(rows[i][status], "ok");
    EXPECT_GT(std::stod(rows[i][flops]), 0);
    EXPECT_NE(rows[i][program].find("gemm " + rows[i][0] + "x256x256"), std::string::npos);
  }
  // Points in order (first parameter slowest); the override reached the machine.
  EXPECT_EQ(rows[1][0], "128");
  EXPECT_EQ(rows[2][1], "32");
  EXPECT_EQ(std::stod(rows[2][peak]), 2 * std::stod(rows[1][peak]));
  EXPECT_EQ(head_bytes(dir + "/s.png", 8), "\x89PNG\r\n\x1a\n");
  EXPECT_NE(head_bytes(dir + "/s.svg", 200).find("<svg"), std::string::npos);
}

TEST(sweep, a_bad_value_is_an_error_row_and_the_other_points_run) {
  const std::string dir = test::temp_dir("sweep_bad");
  const auto r = run_kernbench("sweep --quiet --param M=128,banana,256 --csv " + dir +
                               "/s.csv -- --K 128 --N 128");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("1 of 3 point(s) failed"), std::string::npos) << r.err;
  const auto rows = read_csv(dir + "/s.csv");
  ASSERT_EQ(rows.size(), 4u);
  const size_t status = column(rows[0], "status"), error = column(rows[0], "error"),
               latency = column(rows[0], "max_latency_ps");
  EXPECT_EQ(rows[1][status], "ok");
  EXPECT_EQ(rows[2][status], "failed");
  EXPECT_NE(rows[2][error].find("--M = banana"), std::string::npos) << rows[2][error];
  EXPECT_EQ(rows[2][latency], "");
  EXPECT_EQ(rows[3][status], "ok");
  EXPECT_GT(std::stoull(rows[3][latency]), std::stoull(rows[1][latency]));
}

TEST(sweep, bad_input_is_refused_before_anything_runs) {
  const std::string dir = test::temp_dir("sweep_refused");
  auto r = run_kernbench("sweep --param M=1 --csv " + dir + "/s.csv -- --M 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--param M: --M is also given after --"), std::string::npos) << r.err;
  r = run_kernbench("sweep --param M=1 --plot nonsense:M --csv " + dir + "/s.csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--plot nonsense:M: METRIC 'nonsense' is not a column of the sweep's CSV "
                       "(the columns: process_wall_s, topology, set, program, pes, end_ps, "
                       "max_latency_ps"),
            std::string::npos)
    << r.err;
  r = run_kernbench("sweep --param M=1 --plot max_latency_ps:K:M --csv " + dir + "/s.csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--plot max_latency_ps:K:M: 'K' is not a swept parameter (the --param "
                       "keys: M)"),
            std::string::npos)
    << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.csv"));
}

TEST(sweep, more_points_than_the_limit_are_refused_before_any_is_made) {
  // 10^9 points were all built up front: 3 GB in 30 s before the first ran.
  const std::string dir = test::temp_dir("sweep_huge");
  std::string thousand;
  for (int i = 1; i <= 1000; ++i)
    thousand += (i == 1 ? "" : ",") + std::to_string(i);
  auto r = run_kernbench("sweep --param M=" + thousand + " --param N=" + thousand + " --param K=" +
                         thousand + " --csv " + dir + "/s.csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --param: 1000000000 points (1000 x 1000 x 1000), more "
                   "than the limit of 100000 (each point is a `kernbench run` process and a CSV "
                   "row held until the end)\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.csv"));
  // A product past 2^64 says so instead of wrapping.
  std::vector<sweep_axis> axes(7, sweep_axis{"k", "", "", 1, {}});
  for (auto& a : axes)
    a.values.assign(1u << 10, "1");
  EXPECT_EQ(point_count(axes), SIZE_MAX);
  try {
    check_point_count(axes);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 34), "--param: more than 2^64 points (10");
  }
}

TEST(sweep, the_plot_says_what_it_shows_in_words_and_units) {
  // It had the raw column names, picoseconds with a 1e12 offset and no word
  // of the problem or the machine (issue 33).
  const std::string dir = test::temp_dir("sweep_labels");
  const auto r = run_kernbench("sweep --quiet --param M=128,256 --csv " + dir +
                               "/s.csv --plot max_latency_ps:M -- --K 128 --N 128 --pes 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = test::slurp(dir + "/s.svg");
  for (const char* text : {">max latency (ns)<", ">max latency vs M<",
                           ">fixed: K=128, N=128, dtype=f16, tile=128x128x128, pes=2<",
                           ">machine: topology.yaml"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  EXPECT_EQ(svg.find("max_latency_ps"), std::string::npos);
  // No offset or exponent in any text of the figure (e.g. "1e7"), the
  // build's name aside: a git hash such as 3d9e15f reads as one.
  const std::string texts =
    std::regex_replace(svg, std::regex("kernbench [0-9.]+ \\([0-9a-f]+[^)]*\\)"), "kernbench");
  EXPECT_NE(texts.find(">machine: topology.yaml   kernbench<"), std::string::npos) << texts;
  EXPECT_FALSE(std::regex_search(texts, std::regex(">[^<]*[0-9]e[+-]?[0-9]+[^<]*<")));
}

TEST(sweep, a_plot_without_python_says_so) {
  const std::string dir = test::temp_dir("sweep_nopython");
  const auto r = run_kernbench("sweep --quiet --param M=128 --csv " + dir +
                                 "/s.csv --plot max_latency_ps:M -- --K 128 --N 128",
                               "KB_PYTHON=/nonexistent/python3");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("kernbench sweep: --plot: cannot run /nonexistent/python3: No such file "
                       "or directory (install python3 and python3-matplotlib, or name the Python "
                       "that has matplotlib in KB_PYTHON)"),
            std::string::npos)
    << r.err;
  EXPECT_EQ(read_csv(dir + "/s.csv").size(), 2u); // the CSV is written anyway
}

} // namespace
} // namespace kb
