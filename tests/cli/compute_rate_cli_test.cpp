// Compute rate by dtype (ADR-0032) through `kernbench run`: integer runs
// count OP/s and floating ones FLOP/s, the peak follows PE_GEMM's rate of the
// run's dtype, the II prediction uses the same rates as the units, and a bad
// rate is refused naming its key.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace kb {
namespace {

using test::run_kernbench;
using test::slurp;

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// One PE at 1 GHz with 32x32 MACs: 2 * 1024 * 1e9 = 2.048e12 per second at
// rate 1; i8 at rate 2 doubles it to 4.096e12, counted in OP/s.
TEST(compute_rate_cli, an_i8_run_counts_op_per_s_at_its_rate) {
  const std::string dir = test::temp_dir("rate_i8");
  const auto r = run_kernbench("run --M 256 --K 256 --N 256 --dtype i8 --out-dtype i32 "
                               "--set cube.pe_template.pe_gemm.rate_i8=2 --json " +
                               dir + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, " TOP/s achieved of 4.096 TOP/s peak (")) << r.out;
  EXPECT_FALSE(has(r.out, "FLOP/s")) << r.out;
  EXPECT_TRUE(has(slurp(dir + "/r.json"), "\"peak_flop_per_s\": 4.096e+12"));
  // A kernel run takes its label from its dtype argument; on every PE of the
  // default machine (4): 4 x 4.096e12.
  const auto k = run_kernbench("run --kernel gemm --arg dtype=i8 --arg out_dtype=i32 "
                               "--set cube.pe_template.pe_gemm.rate_i8=2");
  ASSERT_EQ(k.exit_code, 0) << k.err;
  EXPECT_TRUE(has(k.out, " TOP/s achieved of 16.384 TOP/s peak (")) << k.out;
}

// The same --set on an f16 run changes nothing: f16's rate is still 1.
TEST(compute_rate_cli, an_f16_run_counts_flop_per_s) {
  const auto r = run_kernbench("run --M 256 --K 256 --N 256 --dtype f16 "
                               "--set cube.pe_template.pe_gemm.rate_i8=2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, " TFLOP/s achieved of 2.048 TFLOP/s peak (")) << r.out;
  EXPECT_FALSE(has(r.out, "TOP/s")) << r.out;
}

// 512x128x512 f32 in 128^3 tiles: one K tile per output tile, so the body is
// one tile, and GEMM bounds it (its DMA reads 2 x 64 KiB at 256 GB/s =
// 512 ns). At rate 1/4: 4 * 4 * 128 * 4 + 32 + 32 = 8256 cycles = 8256 ns.
TEST(compute_rate_cli, the_predicted_ii_of_a_gemm_at_a_quarter_rate_is_the_simulated_one) {
  const std::string dir = test::temp_dir("rate_ii");
  const auto r = run_kernbench("run --M 512 --K 128 --N 512 --dtype f32 "
                               "--set cube.pe_template.pe_gemm.rate_f32=1/4 --json " +
                               dir + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string j = slurp(dir + "/r.json");
  EXPECT_TRUE(has(j, "\"predicted_ii_ps\": 8256000,")) << j;
  EXPECT_TRUE(has(j, "\"steady_interval_ps\": 8256000,")) << j;
}

// exp on 512x512 f32 in 128x128 tiles: PE_MATH at f32 rate 1/2 takes
// ceil(16384 * 2 / 64) * 4 + 4 = 2052 cycles per tile, more than its DMA
// (64 KiB each way at 256 GB/s = 256 ns).
TEST(compute_rate_cli, the_predicted_ii_of_a_math_at_half_rate_is_the_simulated_one) {
  const std::string dir = test::temp_dir("rate_math_ii");
  const auto r = run_kernbench("run --op math --op-kind exp --M 512 --N 512 --tile 128 128 "
                               "--dtype f32 --set cube.pe_template.pe_math.rate_f32=1/2 --json " +
                               dir + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string j = slurp(dir + "/r.json");
  EXPECT_TRUE(has(j, "\"predicted_ii_ps\": 2052000,")) << j;
  EXPECT_TRUE(has(j, "\"steady_interval_ps\": 2052000,")) << j;
}

// The error names the file and line of the unit's map (where --set put the
// key; the line moves with config/topology.yaml, so it is matched as a
// number) and the key's full path.
TEST(compute_rate_cli, a_bad_rate_is_refused_naming_the_key) {
  for (const std::string bad : {"0", "-1", "fast", "1/0"}) {
    const auto r = run_kernbench("run --M 256 --K 256 --N 256 --set "
                                 "cube.pe_template.pe_gemm.rate_i8=" + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(std::regex_search(
      r.err, std::regex("^kernbench: error: [^ ]*config/topology\\.yaml:[0-9]+: "
                        "cube\\.pe_template\\.components\\.pe_gemm\\.rate_i8: '" + bad +
                        "' is not a rate: expected a positive integer n, a fraction n/d or a "
                        "decimal such as 0\\.25 \\(work per cycle relative to f16\\)\n$")))
      << r.err;
  }
  const auto m = run_kernbench("run --M 256 --K 256 --N 256 --set "
                               "cube.pe_template.pe_math.rate_f32=-2");
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_TRUE(has(m.err, "pe_math.rate_f32: '-2' is not a rate")) << m.err;
}

} // namespace
} // namespace kb
