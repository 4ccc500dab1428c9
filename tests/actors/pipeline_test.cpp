// A whole GEMM tile through the PE units (DESIGN §4, second worked example).
// The worked example issues at PE_CPU at 0 and the scheduler receives it at
// 1 ns; here the feeder stands in for the scheduler and sends at 0, so every
// time is the worked example's minus 1 ns.

#include "runtime/plan/gemm_plan.hpp"
#include "tests/actors/harness.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using namespace kb::test;

pipeline_plan one_tile_gemm() {
  gemm_plan_args a;
  a.m = a.k = a.n = 128;
  a.tile_m = a.tile_k = a.tile_n = 128;
  a.in_dtype = dtype::f16;
  a.a_addr = 0x0;
  a.b_addr = 0x100000;
  a.c_addr = 0x200000;
  return generate_gemm_plan(a);
}

// DMA read channel takes at 1; A ends 245, B ends 489 (setup again, see
// pe_dma_test); token to fetch at 490: TCM request 491, 64 KiB = 128 ns,
// reply 620; GEMM 621..2733 (ceil(128/32)^2 * 128 + 64 = 2112 cycles);
// store lane 2734: request 2735, 32 KiB = 64 ns, reply 2800; write channel
// 2801: setup -> 2809, payload 2809..2937 on the 256 GB/s link -> xbar
// 2810/2938 -> 2812/2940 -> hbm 2813/2941; HBM s = 2813, free = 2941 (tail),
// ack 3041 -> xbar 3042 -> 3044 -> pe_dma 3045. Tile-done 3046 (= the
// worked example's 3047 - 1).
TEST(Pipeline, GemmTileReproducesTheWorkedExample) {
  const pipeline_plan plan = one_tile_gemm();
  ASSERT_EQ(plan.tiles.size(), 1u);
  test_machine sim;
  make_cube(sim, {.pes = 1, .tiles = {plan.tiles}});
  run_result r = run(sim);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"),
            std::vector<uint64_t>{3046000});
  const std::string dma = unit(0, "pe_dma"), fs = unit(0, "pe_fetch_store");
  EXPECT_EQ(figure_of(r, dma, "read.busy_ps"), 488000u);    // 1..489
  EXPECT_EQ(figure_of(r, fs, "fetch.busy_ps"), 130000u);    // 490..620
  EXPECT_EQ(figure_of(r, unit(0, "pe_gemm"), "gemm.busy_ps"), 2112000u);
  EXPECT_EQ(figure_of(r, fs, "store.busy_ps"), 66000u);     // 2734..2800
  EXPECT_EQ(figure_of(r, dma, "write.busy_ps"), 244000u);   // 2801..3045
  // Tokens waited in no queue: each unit was idle when its token arrived.
  EXPECT_EQ(figure_of(r, dma, "read.wait_ps"), 0u);
  EXPECT_EQ(figure_of(r, fs, "fetch.wait_ps"), 0u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "read_bytes"), 65536u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "write_bytes"), 32768u);
}

// The same tile on 1 and 4 threads, three times each: identical figures.
TEST(Pipeline, GemmTileIsTheSameOnOneAndFourThreads) {
  const pipeline_plan plan = one_tile_gemm();
  std::vector<uint64_t> first;
  for (int rep = 0; rep < 3; ++rep)
    for (size_t threads : {1u, 4u}) {
      test_machine sim;
      make_cube(sim, {.pes = 1, .tiles = {plan.tiles}});
      run_result r = run(sim, threads);
      ASSERT_EQ(r.error, "");
      std::vector<uint64_t> all;
      for (const auto& n : r.nodes)
        for (const auto& f : n.figures)
          all.push_back(f.value);
      if (first.empty())
        first = all;
      EXPECT_EQ(all, first) << "threads " << threads;
    }
}

} // namespace
} // namespace kb
