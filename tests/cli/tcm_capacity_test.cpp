// The scheduler's reserved TCM is a real capacity (issue 34 item 1,
// docs/adr/0031-tcm-capacity.md): a tile whose buffers cannot fit in it is
// refused, naming the tile's bytes and the reserve, and the tiles in flight
// are throttled to what fits, never run as if the PE had the room.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kb {
namespace {

using test::run_kernbench;

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// 1024^3 f32 tiles: A, B and C are 1024 * 1024 * 4 B = 4 MiB each, so the
// one tile of a 1024^3 GEMM holds 12,582,912 B of the scheduler's 2,560 KiB.
TEST(tcm_capacity, a_tile_larger_than_the_schedulers_tcm_is_refused_by_its_numbers) {
  const auto r = run_kernbench("run --M 1024 --K 1024 --N 1024 --tile 1024 1024 1024 --dtype f32");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "sip0.cube0.pe0.pe_scheduler at t=7000 ps: command 1: tile 0 needs "
                         "12582912 B of the scheduler's TCM for its buffers, more than all of "
                         "it: 2621440 B (pe_tcm scheduler_reserved_kib = 2560)"))
    << r.err;
  EXPECT_FALSE(has(r.out, "verdict: PASS"));
}

// One 128^3 f16 tile (a single last-K tile): A 32 KiB + B 32 KiB + C 32 KiB
// = 98,304 B = 96 KiB. A reserve of exactly 96 KiB runs it; 95 KiB refuses.
TEST(tcm_capacity, a_tile_that_fills_the_reserve_exactly_runs_and_one_kib_less_refuses) {
  const std::string base = "run --M 128 --K 128 --N 128 --set "
                           "cube.pe_template.pe_tcm.scheduler_reserved_kib=";
  const auto fits = run_kernbench(base + "96");
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  const auto over = run_kernbench(base + "95");
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_TRUE(has(over.err, "tile 0 needs 98304 B of the scheduler's TCM for its buffers, more "
                            "than all of it: 97280 B (pe_tcm scheduler_reserved_kib = 95)"))
    << over.err;
  // Pinned operands hold no slot: the same tile with A and B pinned in TCM
  // by a kernel is not the scheduler's to hold (scheduler_tcm_bytes, tested
  // in tests/plan/gemm_plan_test.cpp).
}

/// The value of `"key": ` in `json` (first occurrence), or -1.
long long json_value(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\": ");
  return at == std::string::npos ? -1 : std::stoll(json.substr(at + key.size() + 4));
}

// Eight 128^3 f16 tiles (M = 1024), 98,304 B each, in a 96 KiB reserve: one
// tile at a time. DESIGN §4's worked example: a tile fed at 1 ns has its
// tile-done notice back at 3,047 ns (L = 3,046 ns), so the last notice comes
// at 1 + 8 * 3,046 = 24,369 ns and PE_CPU sees the command done at 24,370 ns.
// Seven tiles waited 3,046 ns each for room; the II prediction's TCM bound,
// 98,304 * 3,046 / 98,304 ns, is the simulated interval (ADR-0031).
TEST(tcm_capacity, a_reserve_of_one_tile_runs_the_tiles_one_after_another) {
  const std::string dir = test::temp_dir("tcm_one_tile");
  const auto r = run_kernbench("run --M 1024 --K 128 --N 128 --json " + dir +
                               "/r.json --set cube.pe_template.pe_tcm.scheduler_reserved_kib=96");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = test::slurp(dir + "/r.json");
  EXPECT_EQ(json_value(json, "latency_ps"), 24370000);
  EXPECT_EQ(json_value(json, "tcm.stall_ps"), 7 * 3046000);
  EXPECT_EQ(json_value(json, "tcm.peak_bytes"), 98304);
  EXPECT_EQ(json_value(json, "predicted_ii_ps"), 3046000);
  EXPECT_EQ(json_value(json, "steady_interval_ps"), 3046000);
}

// Two tiles fit in 192 KiB: the TCM bound (1,523 ns) is below the GEMM's
// 2,112 cycles, so the II, the interval and the latency are the default
// machine's (whose 2,560 KiB never holds a tile back: no tcm figures).
TEST(tcm_capacity, a_reserve_of_two_tiles_leaves_the_gemm_bound_run_as_it_was) {
  const std::string dir = test::temp_dir("tcm_two_tiles");
  const auto two = run_kernbench("run --M 1024 --K 128 --N 128 --json " + dir +
                                 "/two.json --set cube.pe_template.pe_tcm.scheduler_reserved_kib=192");
  const auto dflt = run_kernbench("run --M 1024 --K 128 --N 128 --json " + dir + "/default.json");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  ASSERT_EQ(dflt.exit_code, 0) << dflt.err;
  const std::string a = test::slurp(dir + "/two.json"), b = test::slurp(dir + "/default.json");
  for (const char* key : {"latency_ps", "predicted_ii_ps", "steady_interval_ps"})
    EXPECT_EQ(json_value(a, key), json_value(b, key)) << key;
  EXPECT_EQ(json_value(a, "latency_ps"), 17832000);
  EXPECT_EQ(json_value(a, "predicted_ii_ps"), 2112000);
  EXPECT_EQ(json_value(a, "tcm.peak_bytes"), 2 * 98304);
  EXPECT_GT(json_value(a, "tcm.stall_ps"), 0);
  EXPECT_EQ(json_value(b, "tcm.stall_ps"), -1);
}

} // namespace
} // namespace kb
