// PE_FETCH_STORE + PE_TCM, PE_MATH and PE_GEMM timing (DESIGN §4), derived
// by hand. The feeder sends at 0 over a 1 ns wire, so a unit takes its first
// token at t0 = 1 ns; the tile-done notice crosses another 1 ns wire.

#include "actors/pe_gemm.hpp"
#include "actors/pe_math.hpp"
#include "runtime/plan/gemm_plan.hpp"
#include "tests/actors/harness.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using namespace kb::test;

run_result run_one_pe(std::vector<tile_plan> tiles) {
  test_machine sim;
  make_cube(sim, {.pes = 1, .tiles = {std::move(tiles)}});
  return run(sim);
}

std::vector<uint64_t> done_ps(const run_result& r) {
  return series_of(r, unit(0, "pe_scheduler"), "done_ps");
}

// t0 = 1: the fetch lane takes the token and sends a tcm_request over the
// 1 ns wire: arrives 2. TCM: s = 2, free = 2 + xfer(64 KiB, 512 GB/s)
// = 2 + 128 = 130; the reply leaves at 130, arrives 131 = t0 + 128 + 2
// wires. Tile-done 132.
TEST(PeFetchStore, Fetch64KiBTakesTcmTimePlusTwoWires) {
  run_result r = run_one_pe({tile(0, {tcm_stage(stage_type::fetch, 65536)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(done_ps(r), std::vector<uint64_t>{132000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_fetch_store"), "fetch.busy_ps"), 130000u);
  EXPECT_EQ(figure_of(r, unit(0, "pe_tcm"), "busy_ps"), 128000u);
}

// Store of 32 KiB: request arrives 2, TCM 2..66, reply arrives 67 =
// t0 + 64 + 2 wires. Tile-done 68.
TEST(PeFetchStore, Store32KiBTakesTcmTimePlusTwoWires) {
  run_result r = run_one_pe({tile(0, {tcm_stage(stage_type::store, 32768)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(done_ps(r), std::vector<uint64_t>{68000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_fetch_store"), "store.busy_ps"), 66000u);
}

// The lanes run at once but share the TCM, which serves FIFO in key order.
// Tile 0 (fetch) and tile 1 (store) both arrive at 1, tile 0 first (same
// sender, lower sequence); both requests arrive at the TCM at 2, fetch
// first: fetch s = 2, free 130, reply arrives 131; store s = 130, free 194,
// reply arrives 195. Tile-done: 132 and 196.
TEST(PeFetchStore, FetchAndStoreLanesShareTheTcmFifo) {
  run_result r = run_one_pe({tile(0, {tcm_stage(stage_type::fetch, 65536)}),
                             tile(1, {tcm_stage(stage_type::store, 32768)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(done_ps(r), (std::vector<uint64_t>{132000, 196000}));
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_tile"),
            (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(figure_of(r, unit(0, "pe_fetch_store"), "store.busy_ps"), 194000u);
  EXPECT_EQ(figure_of(r, unit(0, "pe_tcm"), "busy_ps"), 192000u);
}

// exp on 128x128 = 16384 elements: ceil(16384/64) * 4 + 4 = 1028 cycles.
// t0 = 1 ns, ends 1029 ns, tile-done 1030 ns.
TEST(PeMath, Exp128x128Takes1028Cycles) {
  run_result r = run_one_pe({tile(0, {math_stage(math_op::exp, 16384)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(done_ps(r), std::vector<uint64_t>{1030000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_math"), "math.busy_ps"), 1028000u);
}

// Cheap ops cost 1 per group of 64, expensive ones 4; a partial group counts
// whole: relu on 100 elements = ceil(100/64) * 1 + 4 = 6 cycles.
TEST(PeMath, OpCostsFollowTheOpClass) {
  const pe_math::config c;
  EXPECT_EQ(pe_math::stage_cycles(c, math_op::relu, 100), Cycles{6});
  for (math_op op : {math_op::add, math_op::mul, math_op::relu, math_op::bias,
                     math_op::scale})
    EXPECT_EQ(pe_math::stage_cycles(c, op, 128), Cycles{2 + 4}) << to_string(op);
  for (math_op op : {math_op::exp, math_op::dequant, math_op::rsqrt})
    EXPECT_EQ(pe_math::stage_cycles(c, op, 128), Cycles{8 + 4}) << to_string(op);
  EXPECT_EQ(pe_math::stage_cycles(c, math_op::add, 0), Cycles{4});
}

// Two MATH stages back to back on one token (epilogue bias then relu on a
// 32x32 tile = 1024 elements): 16 + 4 = 20 cycles each, no re-queueing:
// 1 -> 21 -> 41, tile-done 42.
TEST(PeMath, ConsecutiveOpsRunBackToBack) {
  run_result r = run_one_pe({tile(0, {math_stage(math_op::bias, 1024),
                                      math_stage(math_op::relu, 1024)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(done_ps(r), std::vector<uint64_t>{42000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_math"), "math.stages"), 2u);
}

// GEMM M=34, K=N=128 with 32x128x128 tiles: tile 1 is the M edge, tm = 2.
// ceil(2/32) * ceil(128/32) * 128 + 32 + 32 = 1 * 4 * 128 + 64 = 576
// cycles: t0 = 1, ends 577, tile-done 578.
TEST(PeGemm, EdgeTileTm2Takes576Cycles) {
  gemm_plan_args a;
  a.m = 34;
  a.k = 128;
  a.n = 128;
  a.tile_m = 32;
  a.tile_k = 128;
  a.tile_n = 128;
  const pipeline_plan plan = generate_gemm_plan(a);
  ASSERT_EQ(plan.tiles.size(), 2u);
  stage g;
  for (const stage& s : plan.tiles[1].stages)
    if (s.type == stage_type::gemm)
      g = s;
  ASSERT_EQ(g.params.tm, 2u);
  const pe_gemm::config defaults;
  EXPECT_EQ(pe_gemm::tile_cycles(defaults, 2, 128, 128), Cycles{576});

  run_result r = run_one_pe({tile(1, {g})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(done_ps(r), std::vector<uint64_t>{578000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_gemm"), "gemm.busy_ps"), 576000u);
}

} // namespace
} // namespace kb
