// Unit tests: tile grid of generate_gemm_plan — counts, M->N->K order, edge
// tiles, degenerate grids, idempotence and a large grid's stage count.

#include "runtime/plan/gemm_plan.hpp"

#include "plan_test_util.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::coords;
using test::kinds;
using st = stage_type;

gemm_plan_args f16_gemm(uint32_t m, uint32_t k, uint32_t n, uint32_t tile) {
  gemm_plan_args args;
  args.m = m;
  args.k = k;
  args.n = n;
  args.tile_m = args.tile_k = args.tile_n = tile;
  args.in_dtype = dtype::f16;
  args.a_addr = 0x1000'0000;
  args.b_addr = 0x2000'0000;
  args.c_addr = 0x3000'0000;
  return args;
}

TEST(GemmPlanTiling, TileIdsCountInMThenNThenKOrder) {
  // 3 x 2 x 2 tiles: M = 96, N = 64, K = 64 in 32-tiles.
  auto plan = generate_gemm_plan(f16_gemm(96, 64, 64, 32));
  using c = std::array<uint32_t, 3>;
  EXPECT_EQ(coords(plan), (std::vector<c>{{0, 0, 0},
                                          {0, 0, 1},
                                          {0, 1, 0},
                                          {0, 1, 1},
                                          {1, 0, 0},
                                          {1, 0, 1},
                                          {1, 1, 0},
                                          {1, 1, 1},
                                          {2, 0, 0},
                                          {2, 0, 1},
                                          {2, 1, 0},
                                          {2, 1, 1}}));
  for (uint32_t i = 0; i < plan.tiles.size(); ++i)
    EXPECT_EQ(plan.tiles[i].tile_id, i);
}

TEST(GemmPlanTiling, EdgeTileAlongMTakesTheRemainder) {
  // M = 130 in 128-row tiles: the second M tile has tm = 2.
  auto plan = generate_gemm_plan(f16_gemm(130, 128, 128, 128));
  ASSERT_EQ(plan.tiles.size(), 2u);
  const auto& full = plan.tiles[0].stages;
  const auto& edge = plan.tiles[1].stages;
  EXPECT_EQ(full[0].params.tm, 128u);
  EXPECT_EQ(full[0].params.bytes, 32768u);
  ASSERT_EQ(kinds(plan.tiles[1]),
            (std::vector<st>{st::dma_read, st::dma_read, st::fetch, st::gemm,
                             st::store, st::dma_write}));
  for (const auto& s : edge) {
    EXPECT_EQ(s.params.tm, 2u);
    EXPECT_EQ(s.params.tk, 128u);
    EXPECT_EQ(s.params.tn, 128u);
  }
  // A rows 128..129: address + 128 * 128 * 2, 2 rows of 256 B.
  EXPECT_EQ(edge[0].params.address, 0x1000'0000u + 32768);
  EXPECT_EQ(edge[0].params.rows, 2u);
  EXPECT_EQ(edge[0].params.row_bytes, 256u);
  EXPECT_EQ(edge[0].params.bytes, 512u);
  // B is a whole 128 x 128 tile.
  EXPECT_EQ(edge[1].params.address, 0x2000'0000u);
  EXPECT_EQ(edge[1].params.bytes, 32768u);
  EXPECT_EQ(edge[2].params.bytes, 512u + 32768);
  EXPECT_EQ(edge[4].params.bytes, 512u);
  EXPECT_EQ(edge[5].params.address, 0x3000'0000u + 32768);
  EXPECT_EQ(edge[5].params.rows, 2u);
  EXPECT_EQ(edge[5].params.bytes, 512u);
}

TEST(GemmPlanTiling, EdgeTilesOnAllAxesHaveExactRegions) {
  // M = 130, K = 130, N = 200 in 128-tiles: tile 7 is (1, 1, 1) with
  // tm = 2, tk = 2, tn = 72.
  auto args = f16_gemm(130, 130, 200, 128);
  auto plan = generate_gemm_plan(args);
  ASSERT_EQ(plan.tiles.size(), 8u);
  const auto& tile = plan.tiles[7];
  auto p = test::tile_params(2, 2, 72, dtype::f16, dtype::f16, true);
  auto a = p, b = p, f = p, s = p, w = p;
  // A (128, 128) in a 130-wide matrix: (128 * 130 + 128) * 2 = 33536.
  a.operand = 'A', a.address = args.a_addr + 33536, a.row_stride_bytes = 260;
  a.rows = 2, a.row_bytes = 4, a.bytes = 8;
  // B (128, 128) in a 200-wide matrix: (128 * 200 + 128) * 2 = 51456.
  b.operand = 'B', b.address = args.b_addr + 51456, b.row_stride_bytes = 400;
  b.rows = 2, b.row_bytes = 144, b.bytes = 288;
  f.bytes = 8 + 288;
  s.operand = 'C', s.bytes = 288;
  w.operand = 'C', w.address = args.c_addr + 51456, w.row_stride_bytes = 400;
  w.rows = 2, w.row_bytes = 144, w.bytes = 288;
  const std::vector<stage> expected{
      {st::dma_read, unit_role::dma, a},
      {st::dma_read, unit_role::dma, b},
      {st::fetch, unit_role::fetch_store, f},
      {st::gemm, unit_role::gemm, p},
      {st::store, unit_role::fetch_store, s},
      {st::dma_write, unit_role::dma, w},
  };
  EXPECT_EQ(tile.stages, expected);
}

TEST(GemmPlanTiling, ProblemSmallerThanOneTileGivesOneEdgeTile) {
  auto plan = generate_gemm_plan(f16_gemm(5, 3, 7, 128));
  ASSERT_EQ(plan.tiles.size(), 1u);
  const auto& s = plan.tiles[0].stages;
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0].params.bytes, 5u * 3 * 2);
  EXPECT_EQ(s[1].params.bytes, 3u * 7 * 2);
  EXPECT_EQ(s[2].params.bytes, (5u * 3 + 3u * 7) * 2);
  EXPECT_EQ(s[3].params.tm, 5u);
  EXPECT_EQ(s[3].params.tk, 3u);
  EXPECT_EQ(s[3].params.tn, 7u);
  EXPECT_EQ(s[4].params.bytes, 5u * 7 * 2);
}

TEST(GemmPlanTiling, OneByOneByOneGridIsOneCompleteTile) {
  auto plan = generate_gemm_plan(f16_gemm(128, 128, 128, 128));
  ASSERT_EQ(plan.tiles.size(), 1u);
  const auto& tile = plan.tiles[0];
  EXPECT_EQ(tile.tile_id, 0u);
  EXPECT_EQ((std::array{tile.m, tile.n, tile.k}), (std::array<uint32_t, 3>{}));
  EXPECT_EQ(kinds(tile), (std::vector<st>{st::dma_read, st::dma_read, st::fetch,
                                          st::gemm, st::store, st::dma_write}));
  for (const auto& s : tile.stages)
    EXPECT_TRUE(s.params.last_k);
}

TEST(GemmPlanTiling, OnlyTheLastKTileIsMarkedLastK) {
  auto plan = generate_gemm_plan(f16_gemm(128, 384, 128, 128));
  ASSERT_EQ(plan.tiles.size(), 3u);
  for (const auto& tile : plan.tiles)
    for (const auto& s : tile.stages)
      EXPECT_EQ(s.params.last_k, tile.k == 2) << "tile " << tile.tile_id;
}

TEST(GemmPlanTiling, SameArgsGiveEqualPlans) {
  auto args = f16_gemm(300, 200, 100, 64);
  args.a_pinned = true;
  args.epilogue = {{math_op::dequant, epilogue_scope::k_tile},
                   {math_op::relu, epilogue_scope::output_tile}};
  const auto first = generate_gemm_plan(args);
  const auto second = generate_gemm_plan(args);
  EXPECT_EQ(first, second);
  // Equality is not vacuous: a changed argument changes the plan.
  args.c_addr += 2;
  EXPECT_NE(generate_gemm_plan(args), first);
}

TEST(GemmPlanTiling, Gemm1024CubedIn128TilesHas512TilesAndExactStageCount) {
  auto plan = generate_gemm_plan(f16_gemm(1024, 1024, 1024, 128));
  // 8 x 8 x 8 tiles; every tile: 2 DMA reads + FETCH + GEMM; the 64 last-K
  // tiles add STORE + DMA_WRITE: 512 * 4 + 64 * 2 = 2176.
  EXPECT_EQ(plan.tiles.size(), 512u);
  EXPECT_EQ(stage_count(plan), 2176u);
  EXPECT_EQ(stage_count(plan, st::dma_read), 1024u);
  EXPECT_EQ(stage_count(plan, st::fetch), 512u);
  EXPECT_EQ(stage_count(plan, st::gemm), 512u);
  EXPECT_EQ(stage_count(plan, st::math), 0u);
  EXPECT_EQ(stage_count(plan, st::store), 64u);
  EXPECT_EQ(stage_count(plan, st::dma_write), 64u);
  EXPECT_EQ(plan.tiles.back().tile_id, 511u);
}

TEST(GemmPlanTiling, Gemm1024CubedPinnedWithEpilogueHasExactStageCount) {
  auto args = f16_gemm(1024, 1024, 1024, 128);
  args.a_pinned = args.b_pinned = true;
  args.epilogue = {{math_op::scale, epilogue_scope::k_tile},
                   {math_op::relu, epilogue_scope::output_tile}};
  auto plan = generate_gemm_plan(args);
  // Every tile: FETCH + GEMM + k_tile MATH; last-K tiles add MATH + STORE +
  // DMA_WRITE: 512 * 3 + 64 * 3 = 1728.
  EXPECT_EQ(stage_count(plan), 1728u);
  EXPECT_EQ(stage_count(plan, st::dma_read), 0u);
  EXPECT_EQ(stage_count(plan, st::math), 512u + 64);
}

} // namespace
} // namespace kb
