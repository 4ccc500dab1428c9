// Unit tests: generate_math_plan (seed ADR-0042 D5) — stage sequence, M->N order,
// edge tiles, output dtype, errors and idempotence.

#include "runtime/plan/math_plan.hpp"

#include "plan_test_util.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::coords;
using test::kinds;
using test::plan_error_of;
using st = stage_type;

constexpr uint64_t src_base = 0x5000'0000;
constexpr uint64_t dst_base = 0x6000'0000;

math_plan_args exp_f16(uint32_t m, uint32_t n, uint32_t tile) {
  math_plan_args args;
  args.m = m;
  args.n = n;
  args.tile_m = args.tile_n = tile;
  args.op = math_op::exp;
  args.in_dtype = dtype::f16;
  args.src_addr = src_base;
  args.dst_addr = dst_base;
  return args;
}

TEST(MathPlan, TileHasExactDmaFetchMathStoreWriteStages) {
  auto plan = generate_math_plan(exp_f16(256, 256, 128));
  ASSERT_EQ(plan.tiles.size(), 4u);
  // Tile 3 = (1, 1): row 128, column 128 of a 256-wide f16 matrix.
  const auto& tile = plan.tiles[3];
  auto p = test::tile_params(128, 0, 128, dtype::f16, dtype::f16, true);
  auto r = p, f = p, m = p, s = p, w = p;
  r.operand = 'A', r.address = src_base + 65792, r.row_stride_bytes = 512;
  r.rows = 128, r.row_bytes = 256, r.bytes = 32768;
  f.bytes = 32768;
  m.elements = 16384, m.op = math_op::exp;
  s.operand = 'C', s.bytes = 32768;
  w.operand = 'C', w.address = dst_base + 65792, w.row_stride_bytes = 512;
  w.rows = 128, w.row_bytes = 256, w.bytes = 32768;
  const std::vector<stage> expected{
      {st::dma_read, unit_role::dma, r},
      {st::fetch, unit_role::fetch_store, f},
      {st::math, unit_role::math, m},
      {st::store, unit_role::fetch_store, s},
      {st::dma_write, unit_role::dma, w},
  };
  EXPECT_EQ(tile.stages, expected);
}

TEST(MathPlan, TilesRunMThenNWithKZero) {
  auto plan = generate_math_plan(exp_f16(96, 64, 32));
  using c = std::array<uint32_t, 3>;
  EXPECT_EQ(
      coords(plan),
      (std::vector<c>{
          {0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {1, 1, 0}, {2, 0, 0}, {2, 1, 0}}));
  for (uint32_t i = 0; i < plan.tiles.size(); ++i) {
    EXPECT_EQ(plan.tiles[i].tile_id, i);
    EXPECT_EQ(kinds(plan.tiles[i]),
              (std::vector<st>{st::dma_read, st::fetch, st::math, st::store,
                               st::dma_write}));
  }
  EXPECT_EQ(stage_count(plan), 30u);
}

TEST(MathPlan, EdgeTilesTakeTheRemainder) {
  // M = 130, N = 200 in 128-tiles: tile 3 = (1, 1) is 2 x 72.
  auto plan = generate_math_plan(exp_f16(130, 200, 128));
  ASSERT_EQ(plan.tiles.size(), 4u);
  const auto& s = plan.tiles[3].stages;
  for (const auto& st : s) {
    EXPECT_EQ(st.params.tm, 2u);
    EXPECT_EQ(st.params.tn, 72u);
  }
  // (128 * 200 + 128) * 2 = 51456; rows of 72 f16 = 144 B, stride 400 B.
  EXPECT_EQ(s[0].params.address, src_base + 51456);
  EXPECT_EQ(s[0].params.rows, 2u);
  EXPECT_EQ(s[0].params.row_bytes, 144u);
  EXPECT_EQ(s[0].params.row_stride_bytes, 400u);
  EXPECT_EQ(s[0].params.bytes, 288u);
  EXPECT_EQ(s[1].params.bytes, 288u);
  EXPECT_EQ(s[2].params.elements, 144u);
  EXPECT_EQ(s[3].params.bytes, 288u);
  EXPECT_EQ(s[4].params.address, dst_base + 51456);
  EXPECT_EQ(s[4].params.bytes, 288u);
  // Tile 1 = (0, 1) is 128 x 72.
  EXPECT_EQ(plan.tiles[1].stages[0].params.address, src_base + 256);
  EXPECT_EQ(plan.tiles[1].stages[0].params.bytes, 128u * 72 * 2);
}

TEST(MathPlan, OutDtypeSetsStoreAndWriteBytes) {
  auto args = exp_f16(64, 64, 64);
  args.op = math_op::dequant;
  args.in_dtype = dtype::i8;
  args.out_dtype = dtype::f32;
  auto plan = generate_math_plan(args);
  ASSERT_EQ(plan.tiles.size(), 1u);
  const auto& s = plan.tiles[0].stages;
  EXPECT_EQ(s[0].params.bytes, 4096u);
  EXPECT_EQ(s[1].params.bytes, 4096u);
  EXPECT_EQ(s[2].params.op, math_op::dequant);
  EXPECT_EQ(s[2].params.scope, std::nullopt);
  EXPECT_EQ(s[3].params.bytes, 16384u);
  EXPECT_EQ(s[4].params.bytes, 16384u);
  EXPECT_EQ(s[4].params.row_stride_bytes, 256u);
}

TEST(MathPlan, ZeroDimensionsAndTileSizesAreRejected) {
  auto expect_rejected = [](auto set, const std::string& name) {
    auto args = exp_f16(64, 64, 32);
    set(args);
    EXPECT_EQ(plan_error_of([&] { generate_math_plan(args); }),
              "generate_math_plan: " + name + " must be > 0");
  };
  expect_rejected([](math_plan_args& a) { a.m = 0; }, "M");
  expect_rejected([](math_plan_args& a) { a.n = 0; }, "N");
  expect_rejected([](math_plan_args& a) { a.tile_m = 0; }, "tile_m");
  expect_rejected([](math_plan_args& a) { a.tile_n = 0; }, "tile_n");
}

TEST(MathPlan, SameArgsGiveEqualPlans) {
  auto args = exp_f16(300, 100, 64);
  EXPECT_EQ(generate_math_plan(args), generate_math_plan(args));
  auto other = args;
  other.op = math_op::rsqrt;
  EXPECT_NE(generate_math_plan(other), generate_math_plan(args));
}

} // namespace
} // namespace kb
