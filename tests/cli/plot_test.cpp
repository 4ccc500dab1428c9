// Figures for a design review or a paper (issue 33, item 6): `sweep --plot`
// with several series and several files, and `kernbench plot` over sweep
// CSVs and `run --json` results. The figures' text (SVG keeps it as text)
// is what is checked: axis labels in human units, legend entries, the
// machine's peak and roofs, the caption's fixed parameters.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The text elements of an SVG written with svg.fonttype none.
void expect_texts(const std::string& svg_path, const std::vector<std::string>& texts) {
  const std::string svg = test::slurp(svg_path);
  ASSERT_TRUE(has(svg, "<svg")) << svg_path;
  for (const auto& t : texts)
    EXPECT_TRUE(has(svg, ">" + t + "</text>")) << svg_path << " has no text '" << t << "'";
}

/// Width, height and pixels per metre (pHYs) of a PNG; zeros if it is none.
struct png_facts {
  uint32_t width = 0, height = 0, per_metre = 0;
};

png_facts png(const std::string& path) {
  const std::string b = test::slurp(path);
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = at; i < at + 4 && i < b.size(); ++i)
      v = (v << 8) | uint8_t(b[i]);
    return v;
  };
  png_facts f;
  if (b.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0)
    return f;
  f.width = be32(16);
  f.height = be32(20);
  if (const size_t p = b.find("pHYs"); p != std::string::npos)
    f.per_metre = be32(p + 4);
  return f;
}

/// A sweep CSV of 4 small GEMMs: M = 128, 256 by two tile shapes, K = N = 256.
std::string small_sweep(const std::string& dir) {
  const auto r = run_kernbench("sweep --quiet --jobs 2 --param M=128,256 --param "
                               "tile=64x64x64,128x128x128 --csv " + dir + "/s.csv -- --K 256 "
                               "--N 256");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir + "/s.csv";
}

TEST(plot, a_sweep_with_three_series_is_a_png_and_an_svg_with_units_legend_and_caption) {
  const std::string dir = test::temp_dir("plot_series");
  const auto r = run_kernbench(
    "sweep --quiet --jobs 2 --param M=128,256 --param cube.pe_template.pe_gemm.mac_rows=8,16,32 "
    "--csv " + dir + "/s.csv --plot achieved_flop_per_s:M:cube.pe_template.pe_gemm.mac_rows "
    "--plot-out " + dir + "/f.png --plot-out " + dir + "/f.svg -- --K 128 --N 128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "kernbench sweep: wrote " + dir + "/f.png, " + dir + "/f.svg")) << r.out;
  const png_facts p = png(dir + "/f.png");
  EXPECT_EQ(p.width, 2100u); // 7 in at 300 dpi
  EXPECT_EQ(p.per_metre, 11811u); // 300 dpi
  expect_texts(dir + "/f.svg",
               {"achieved compute (TFLOP/s)", "M", "128", "256",
                "achieved compute vs M, one line per pe_gemm.mac_rows",
                "cube.pe_template.pe_gemm.mac_rows", "8", "16", "32",
                // each mac_rows is another machine: its own peak, dashed
                "peak of its machine (dashed)",
                "fixed: K=128, N=128, dtype=f16, tile=128x128x128, pes=1"});
  const std::string svg = test::slurp(dir + "/f.svg");
  EXPECT_TRUE(has(svg, ">machine: topology.yaml")); // and the build, when the CSV names it
  EXPECT_FALSE(has(svg, "achieved_flop_per_s"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.png")); // only the files asked for
}

TEST(plot, plot_draws_a_sweep_csv_by_default_and_as_asked) {
  const std::string dir = test::temp_dir("plot_csv");
  const std::string csv = small_sweep(dir);
  // Default: achieved FLOP/s against the first parameter, one line per
  // value of the second, the one peak as a line; files named for the CSV.
  auto r = run_kernbench("plot " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(png(dir + "/s.png").per_metre, 11811u);
  expect_texts(dir + "/s.svg", {"achieved compute (TFLOP/s)", "achieved compute vs M, one line "
                                "per tile", "64x64x64", "128x128x128", "peak 2.05 TFLOP/s",
                                "fixed: K=256, N=256, dtype=f16, pes=1"});
  // Two figures, as PDF and SVG: each name gets its spec.
  r = run_kernbench("plot " + csv + " --plot max_latency_ps:tile:M --plot flop_utilisation:M "
                    "--out " + dir + "/g.pdf --out " + dir + "/g.svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::slurp(dir + "/g-max_latency_ps-tile-M.pdf").substr(0, 5), "%PDF-");
  expect_texts(dir + "/g-max_latency_ps-tile-M.svg",
               {"max latency (µs)", "tile", "M", "256", "max latency vs tile, one line per M"});
  expect_texts(dir + "/g-flop_utilisation-M.svg",
               {"compute utilisation (%)", "100%", "tile 64x64x64", "tile 128x128x128"});
}

TEST(plot, plot_over_run_json_results_finds_what_differs_and_draws_the_roofline) {
  const std::string dir = test::temp_dir("plot_json");
  for (const char* bw : {"32", ""}) {
    const std::string set = *bw ? std::string(" --set cube.hbm.bandwidth_gbps=") + bw : "";
    const auto r = run_kernbench("run --quiet --M 256 --K 256 --N 256" + set + " --json " + dir +
                                 "/r" + bw + ".json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto r = run_kernbench("plot " + dir + "/r32.json " + dir + "/r.json --plot "
                               "achieved_hbm_bytes_per_s:cube.hbm.bandwidth_gbps --plot roofline "
                               "--out " + dir + "/j.svg");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The run without --set has the machine's own bandwidth, 512 GB/s.
  expect_texts(dir + "/j-achieved_hbm_bytes_per_s-cube.hbm.bandwidth_gbps.svg",
               {"achieved HBM bandwidth (GB/s)", "cube.hbm.bandwidth (GB/s)", "32", "512",
                "peak of its machine (dashed)",
                "fixed: M=256, K=256, N=256, dtype=f16, tile=128x128x128, pes=1"});
  EXPECT_TRUE(has(test::slurp(dir + "/j-roofline.svg"), ">machine: topology.yaml (1 SIP(s) × "
                                                        "1 cube(s) × 2×2 PEs, 1 GHz)   kernbench "));
  expect_texts(dir + "/j-roofline.svg",
               {"arithmetic intensity (FLOP/byte of HBM traffic)", "achieved compute (TFLOP/s)",
                "roof: 2.05 TFLOP/s, 32 GB/s", "roof: 2.05 TFLOP/s, 512 GB/s", "32 GB/s",
                "roofline, points labelled with hbm.bandwidth"});
}

TEST(plot, bad_input_exits_2_naming_the_file_and_what_it_has) {
  const std::string dir = test::temp_dir("plot_bad");
  const std::string csv = small_sweep(dir);
  std::ofstream(dir + "/notes.txt") << "hello\n";
  std::ofstream(dir + "/other.json") << "{\"a\": 1}\n";
  struct bad {
    std::string args, says;
  };
  const std::vector<bad> cases{
    {dir + "/nope.csv", "kernbench: error: RESULT " + dir + "/nope.csv: no such file"},
    {dir + "/notes.txt", "kernbench plot: " + dir + "/notes.txt is neither a sweep CSV (no "
                         "status column), a `run --csv` file nor a `run --json` result"},
    {dir + "/other.json", "kernbench plot: " + dir + "/other.json is JSON but not a `kernbench "
                          "run --json` result (no summary object)"},
    {csv + " --plot nonsense:M", "kernbench plot: metric 'nonsense' is not a column of " + csv +
                                   " (the numeric columns: M, process_wall_s, pes, end_ps, "
                                   "max_latency_ps, kernel_latency_ps, flops, achieved_flop_per_s"},
    {csv + " --plot busiest_unit_1:M", "metric 'busiest_unit_1' of " + csv + " has no numbers"},
    {csv + " --plot achieved_flop_per_s:Q", "kernbench plot: parameter 'Q' is not a parameter "
                                            "of " + csv + " (the parameters: M, tile, K, N"},
    {csv + " --plot achieved_flop_per_s:M:Q", "series 'Q' is not a parameter"},
    {csv + " --plot a:b:c:d", "--plot a:b:c:d: expected METRIC:PARAM, METRIC:PARAM:SERIES or "
                              "roofline[:PARAM[:SERIES]]"},
    {csv + " --plot achieved_flop_per_s:M:M", "the series must be another parameter than M"},
    {csv + " --param M=1", "--param"},
    {csv + " --jobs 2", "--jobs"},
  };
  for (const auto& c : cases) {
    const auto r = run_kernbench("plot " + c.args + " --out " + dir + "/x.png");
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_TRUE(has(r.err, c.says)) << c.args << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/x.png")) << c.args;
  }
  // Options of the plot without --plot do not apply to a sweep.
  const auto r = run_kernbench("sweep --param M=128 --plot-out " + dir + "/y.png --csv " + dir +
                               "/t.csv -- --K 128 --N 128");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--plot-out requires --plot")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.csv"));
  // The plot reads the CSV back: not from standard output.
  const auto r2 = run_kernbench("sweep --param M=128 --plot max_latency_ps:M --csv - -- --K 128");
  EXPECT_EQ(r2.exit_code, 2);
  EXPECT_TRUE(has(r2.err, "--plot: needs --csv FILE (the plot reads the CSV back), not --csv -"))
    << r2.err;
}

} // namespace
} // namespace kb
