// Unit tests: stage sequences of generate_gemm_plan (seed ADR-0042 D2-D4) for the
// default case, operand pinning, epilogue scopes and argument errors.

#include "runtime/plan/gemm_plan.hpp"

#include "plan_test_util.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace kb {
namespace {

using test::kinds;
using test::plan_error_of;
using st = stage_type;

constexpr uint64_t a_base = 0x1000'0000;
constexpr uint64_t b_base = 0x2000'0000;
constexpr uint64_t c_base = 0x3000'0000;
constexpr unit_role dma = unit_role::dma;
constexpr unit_role fetch_store = unit_role::fetch_store;
constexpr unit_role gemm = unit_role::gemm;
constexpr unit_role math = unit_role::math;

/// 256^3 f16 GEMM in 128^3 tiles: a 2 x 2 x 2 tile grid.
gemm_plan_args grid_2x2x2() {
  gemm_plan_args args;
  args.m = args.k = args.n = 256;
  args.tile_m = args.tile_k = args.tile_n = 128;
  args.in_dtype = dtype::f16;
  args.a_addr = a_base;
  args.b_addr = b_base;
  args.c_addr = c_base;
  return args;
}

/// Tile-level params of a full 128^3 f16 tile.
stage_params full_tile(bool last_k) {
  return test::tile_params(128, 128, 128, dtype::f16, dtype::f16, last_k);
}

TEST(GemmPlan, DefaultGridHasEightTilesWithStoreOnlyOnLastK) {
  auto plan = generate_gemm_plan(grid_2x2x2());
  ASSERT_EQ(plan.tiles.size(), 8u);
  const std::vector<st> mid{st::dma_read, st::dma_read, st::fetch, st::gemm};
  const std::vector<st> last{st::dma_read, st::dma_read, st::fetch,
                             st::gemm,     st::store,    st::dma_write};
  for (const auto& tile : plan.tiles)
    EXPECT_EQ(kinds(tile), tile.k == 1 ? last : mid) << "tile " << tile.tile_id;
  EXPECT_EQ(stage_count(plan), 4u * 4 + 4u * 6);
}

TEST(GemmPlan, DefaultLastKTileHasExactStages) {
  auto plan = generate_gemm_plan(grid_2x2x2());
  const auto& tile = plan.tiles.at(7);
  EXPECT_EQ(tile.tile_id, 7u);
  EXPECT_EQ((std::array{tile.m, tile.n, tile.k}),
            (std::array<uint32_t, 3>{1, 1, 1}));

  auto p = full_tile(true);
  auto a = p, b = p, f = p, s = p, w = p;
  // Row 128, column 128 of a 256-wide f16 matrix: (128 * 256 + 128) * 2.
  a.operand = 'A', a.address = a_base + 65792, a.row_stride_bytes = 512;
  a.rows = 128, a.row_bytes = 256, a.bytes = 32768;
  b.operand = 'B', b.address = b_base + 65792, b.row_stride_bytes = 512;
  b.rows = 128, b.row_bytes = 256, b.bytes = 32768;
  f.bytes = 65536;
  s.operand = 'C', s.bytes = 32768;
  w.operand = 'C', w.address = c_base + 65792, w.row_stride_bytes = 512;
  w.rows = 128, w.row_bytes = 256, w.bytes = 32768;
  const std::vector<stage> expected{
      {st::dma_read, dma, a},      {st::dma_read, dma, b},
      {st::fetch, fetch_store, f}, {st::gemm, gemm, p},
      {st::store, fetch_store, s}, {st::dma_write, dma, w},
  };
  EXPECT_EQ(tile.stages, expected);
}

TEST(GemmPlan, DefaultFirstKTileHasExactStages) {
  auto plan = generate_gemm_plan(grid_2x2x2());
  auto p = full_tile(false);
  auto a = p, b = p, f = p;
  a.operand = 'A', a.address = a_base, a.row_stride_bytes = 512;
  a.rows = 128, a.row_bytes = 256, a.bytes = 32768;
  b.operand = 'B', b.address = b_base, b.row_stride_bytes = 512;
  b.rows = 128, b.row_bytes = 256, b.bytes = 32768;
  f.bytes = 65536;
  const std::vector<stage> expected{{st::dma_read, dma, a},
                                    {st::dma_read, dma, b},
                                    {st::fetch, fetch_store, f},
                                    {st::gemm, gemm, p}};
  EXPECT_EQ(plan.tiles.at(0).stages, expected);
}

TEST(GemmPlan, DmaAddressesWalkTheRowMajorMatrices) {
  auto plan = generate_gemm_plan(grid_2x2x2());
  // Byte offsets of the A tile (m, k), B tile (k, n) and C tile (m, n).
  const uint64_t a_off[8] = {0, 256, 0, 256, 65536, 65792, 65536, 65792};
  const uint64_t b_off[8] = {0, 65536, 256, 65792, 0, 65536, 256, 65792};
  const uint64_t c_off[8] = {0, 0, 256, 256, 65536, 65536, 65792, 65792};
  for (uint32_t i = 0; i < 8; ++i) {
    const auto& s = plan.tiles[i].stages;
    EXPECT_EQ(s[0].params.address, a_base + a_off[i]) << "tile " << i;
    EXPECT_EQ(s[1].params.address, b_base + b_off[i]) << "tile " << i;
    if (plan.tiles[i].k == 1) {
      EXPECT_EQ(s.back().params.address, c_base + c_off[i]) << "tile " << i;
    }
  }
}

TEST(GemmPlan, StagesNameTheirUnitsByRole) {
  auto args = grid_2x2x2();
  args.epilogue = {{math_op::relu, epilogue_scope::output_tile}};
  auto plan = generate_gemm_plan(args);
  std::vector<unit_role> units;
  for (const auto& s : plan.tiles.at(1).stages)
    units.push_back(s.unit);
  EXPECT_EQ(units, (std::vector<unit_role>{dma, dma, fetch_store, gemm, math, fetch_store, dma}));
}

TEST(GemmPlan, APinnedOmitsOnlyTheADmaRead) {
  auto args = grid_2x2x2();
  args.a_pinned = true;
  auto plan = generate_gemm_plan(args);
  ASSERT_EQ(plan.tiles.size(), 8u);
  for (const auto& tile : plan.tiles) {
    const auto& s = tile.stages;
    ASSERT_EQ(s.size(), tile.k == 1 ? 5u : 3u);
    EXPECT_EQ(s[0].type, st::dma_read);
    EXPECT_EQ(s[0].params.operand, 'B');
    EXPECT_EQ(s[1].type, st::fetch);
    EXPECT_EQ(s[1].params.bytes, 65536u) << "FETCH still moves the A tile";
    EXPECT_EQ(s[2].type, st::gemm);
  }
  EXPECT_EQ(stage_count(plan, st::dma_read), 8u);
}

TEST(GemmPlan, BPinnedOmitsOnlyTheBDmaRead) {
  auto args = grid_2x2x2();
  args.b_pinned = true;
  auto plan = generate_gemm_plan(args);
  for (const auto& tile : plan.tiles) {
    const auto& s = tile.stages;
    ASSERT_EQ(s.size(), tile.k == 1 ? 5u : 3u);
    EXPECT_EQ(s[0].type, st::dma_read);
    EXPECT_EQ(s[0].params.operand, 'A');
    EXPECT_EQ(s[1].type, st::fetch);
    EXPECT_EQ(s[1].params.bytes, 65536u) << "FETCH still moves the B tile";
  }
  EXPECT_EQ(stage_count(plan, st::dma_read), 8u);
}

TEST(GemmPlan, BothPinnedTilesStartWithFetch) {
  auto args = grid_2x2x2();
  args.a_pinned = args.b_pinned = true;
  auto plan = generate_gemm_plan(args);
  const std::vector<st> mid{st::fetch, st::gemm};
  const std::vector<st> last{st::fetch, st::gemm, st::store, st::dma_write};
  for (const auto& tile : plan.tiles) {
    EXPECT_EQ(kinds(tile), tile.k == 1 ? last : mid);
    EXPECT_EQ(tile.stages[0].params.bytes, 65536u);
  }
  EXPECT_EQ(stage_count(plan, st::dma_read), 0u);
  EXPECT_EQ(stage_count(plan), 8u * 2 + 4u * 2);
}

// The scheduler's TCM a tile holds (ADR-0031): its DMA stages to and from a
// scheduler slot. 128^3 f16: A and B 32,768 B each, C 32,768 B on the last
// K tile only; a pinned operand holds none; a kernel's own TCM holds none.
TEST(GemmPlan, SchedulerTcmBytesAreTheTilesSlotBuffers) {
  auto plan = generate_gemm_plan(grid_2x2x2());
  for (const auto& tile : plan.tiles)
    EXPECT_EQ(scheduler_tcm_bytes(tile), tile.k == 1 ? 98304u : 65536u) << tile.tile_id;
  auto args = grid_2x2x2();
  args.a_pinned = true;
  plan = generate_gemm_plan(args);
  for (const auto& tile : plan.tiles)
    EXPECT_EQ(scheduler_tcm_bytes(tile), tile.k == 1 ? 65536u : 32768u) << tile.tile_id;
  tile_plan kernel_load = plan.tiles.front();
  for (auto& s : kernel_load.stages)
    s.params.local_address = 0x4000; // into the kernel's TCM tensor
  EXPECT_EQ(scheduler_tcm_bytes(kernel_load), 0u);
}

TEST(GemmPlan, KTileEpilogueRunsAfterGemmOnEveryKTile) {
  auto args = grid_2x2x2();
  args.epilogue = {{math_op::dequant, epilogue_scope::k_tile},
                   {math_op::scale, epilogue_scope::k_tile}};
  auto plan = generate_gemm_plan(args);
  for (const auto& tile : plan.tiles) {
    std::vector<st> expected{st::dma_read, st::dma_read, st::fetch,
                             st::gemm,     st::math,     st::math};
    if (tile.k == 1)
      expected.insert(expected.end(), {st::store, st::dma_write});
    EXPECT_EQ(kinds(tile), expected) << "tile " << tile.tile_id;
    auto p = full_tile(tile.k == 1);
    p.elements = uint64_t{128} * 128;
    p.scope = epilogue_scope::k_tile;
    p.op = math_op::dequant;
    EXPECT_EQ(tile.stages[4], (stage{st::math, math, p}));
    p.op = math_op::scale;
    EXPECT_EQ(tile.stages[5], (stage{st::math, math, p}));
  }
  EXPECT_EQ(stage_count(plan, st::math), 16u);
}

TEST(GemmPlan, OutputTileEpilogueRunsOnlyOnLastKBeforeStore) {
  auto args = grid_2x2x2();
  args.epilogue = {{math_op::bias, epilogue_scope::output_tile},
                   {math_op::relu, epilogue_scope::output_tile}};
  auto plan = generate_gemm_plan(args);
  for (const auto& tile : plan.tiles) {
    if (tile.k == 0) {
      EXPECT_EQ(kinds(tile), (std::vector<st>{st::dma_read, st::dma_read,
                                              st::fetch, st::gemm}));
      continue;
    }
    EXPECT_EQ(kinds(tile),
              (std::vector<st>{st::dma_read, st::dma_read, st::fetch, st::gemm,
                               st::math, st::math, st::store, st::dma_write}));
    auto p = full_tile(true);
    p.elements = uint64_t{128} * 128;
    p.scope = epilogue_scope::output_tile;
    p.op = math_op::bias;
    EXPECT_EQ(tile.stages[4], (stage{st::math, math, p}));
    p.op = math_op::relu;
    EXPECT_EQ(tile.stages[5], (stage{st::math, math, p}));
  }
  EXPECT_EQ(stage_count(plan, st::math), 8u);
}

TEST(GemmPlan, KTileOpsPrecedeOutputTileOpsOnLastK) {
  auto args = grid_2x2x2();
  // Interleaved on purpose: each scope keeps its own given order.
  args.epilogue = {{math_op::relu, epilogue_scope::output_tile},
                   {math_op::dequant, epilogue_scope::k_tile},
                   {math_op::bias, epilogue_scope::output_tile},
                   {math_op::scale, epilogue_scope::k_tile}};
  auto plan = generate_gemm_plan(args);
  using ops = std::vector<std::pair<math_op, epilogue_scope>>;
  auto math_ops = [](const tile_plan& tile) {
    ops out;
    for (const auto& s : test::stages_of(tile, st::math))
      out.emplace_back(*s.params.op, *s.params.scope);
    return out;
  };
  const ops on_mid{{math_op::dequant, epilogue_scope::k_tile},
                   {math_op::scale, epilogue_scope::k_tile}};
  const ops on_last{{math_op::dequant, epilogue_scope::k_tile},
                    {math_op::scale, epilogue_scope::k_tile},
                    {math_op::relu, epilogue_scope::output_tile},
                    {math_op::bias, epilogue_scope::output_tile}};
  EXPECT_EQ(math_ops(plan.tiles[0]), on_mid);
  EXPECT_EQ(math_ops(plan.tiles[1]), on_last);
  EXPECT_EQ(kinds(plan.tiles[1]),
            (std::vector<st>{st::dma_read, st::dma_read, st::fetch, st::gemm,
                             st::math, st::math, st::math, st::math, st::store,
                             st::dma_write}));
}

TEST(GemmPlan, EpilogueOpWithoutScopeIsRejected) {
  auto args = grid_2x2x2();
  args.epilogue = {{math_op::bias, epilogue_scope::output_tile},
                   {math_op::relu, std::nullopt}};
  EXPECT_THROW(generate_gemm_plan(args), plan_error);
  EXPECT_EQ(plan_error_of([&] { generate_gemm_plan(args); }),
            "generate_gemm_plan: epilogue op #1 'relu' has no scope "
            "(expected k_tile or output_tile)");
}

TEST(GemmPlan, ZeroDimensionsAndTileSizesAreRejected) {
  auto expect_rejected = [](auto set, const std::string& name) {
    auto args = grid_2x2x2();
    set(args);
    EXPECT_EQ(plan_error_of([&] { generate_gemm_plan(args); }),
              "generate_gemm_plan: " + name + " must be > 0");
  };
  expect_rejected([](gemm_plan_args& a) { a.m = 0; }, "M");
  expect_rejected([](gemm_plan_args& a) { a.k = 0; }, "K");
  expect_rejected([](gemm_plan_args& a) { a.n = 0; }, "N");
  expect_rejected([](gemm_plan_args& a) { a.tile_m = 0; }, "tile_m");
  expect_rejected([](gemm_plan_args& a) { a.tile_k = 0; }, "tile_k");
  expect_rejected([](gemm_plan_args& a) { a.tile_n = 0; }, "tile_n");
}

TEST(GemmPlan, MatrixBeyondTheAddressSpaceIsRejected) {
  constexpr uint64_t max = std::numeric_limits<uint64_t>::max();
  auto args = grid_2x2x2();
  args.c_addr = max - 100;
  EXPECT_EQ(plan_error_of([&] { generate_gemm_plan(args); }),
            "generate_gemm_plan: matrix C (256 x 256 f16 at "
            "18446744073709551515) overflows the 64-bit address space");
  // The last byte of C may be the last address.
  args.c_addr = max - uint64_t{256} * 256 * 2 + 1;
  auto plan = generate_gemm_plan(args);
  EXPECT_EQ(plan.tiles.back().stages.back().params.address,
            args.c_addr + 65792);
}

TEST(GemmPlan, OutDtypeDefaultsToInDtype) {
  auto plan = generate_gemm_plan(grid_2x2x2());
  for (const auto& tile : plan.tiles)
    for (const auto& s : tile.stages) {
      EXPECT_EQ(s.params.in_dtype, dtype::f16);
      EXPECT_EQ(s.params.out_dtype, dtype::f16);
    }
}

TEST(GemmPlan, OutDtypeSetsStoreAndWriteBytes) {
  gemm_plan_args args;
  args.m = args.k = args.n = 64;
  args.tile_m = args.tile_k = args.tile_n = 64;
  args.in_dtype = dtype::i8;
  args.out_dtype = dtype::i32;
  args.c_addr = 0x4000;
  auto plan = generate_gemm_plan(args);
  ASSERT_EQ(plan.tiles.size(), 1u);
  const auto& s = plan.tiles[0].stages;
  ASSERT_EQ(kinds(plan.tiles[0]),
            (std::vector<st>{st::dma_read, st::dma_read, st::fetch, st::gemm,
                             st::store, st::dma_write}));
  EXPECT_EQ(s[0].params.bytes, 4096u);  // 64 x 64 i8
  EXPECT_EQ(s[2].params.bytes, 8192u);  // A + B
  EXPECT_EQ(s[4].params.bytes, 16384u); // 64 x 64 i32
  EXPECT_EQ(s[5].params.row_stride_bytes, 256u);
  EXPECT_EQ(s[5].params.row_bytes, 256u);
  EXPECT_EQ(s[5].params.bytes, 16384u);
  EXPECT_EQ(s[5].params.out_dtype, dtype::i32);
}

} // namespace
} // namespace kb
