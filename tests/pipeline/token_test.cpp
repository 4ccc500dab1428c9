// A tile token's message is one segment of exactly the words its plan needs
// (runtime/pipeline/token.cpp, issue 31: every token in flight holds it).

#include "runtime/pipeline/token.hpp"
#include "runtime/plan/gemm_plan.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

/// Checks every tile of `plan`: its token uses one segment, all of it, and
/// carries the tile's stages unchanged.
void expect_tokens_fit(const pipeline_plan& plan) {
  for (const tile_plan& tile : plan.tiles) {
    message_body body = make_token(tile, 7, 3);
    auto segments = body.builder().getSegmentsForOutput();
    ASSERT_EQ(segments.size(), 1u) << "tile " << tile.tile_id;
    EXPECT_EQ(segments[0].size(), token_words(tile)) << "tile " << tile.tile_id;
    auto t = body.root<wire::TileToken>();
    ASSERT_EQ(t.getStages().size(), tile.stages.size());
    for (unsigned i = 0; i < tile.stages.size(); ++i)
      EXPECT_EQ(from_wire(t.getStages()[i]), tile.stages[i]) << "tile " << tile.tile_id;
  }
}

gemm_plan_args gemm(uint32_t size, uint32_t tile) {
  gemm_plan_args a;
  a.m = a.k = a.n = size;
  a.tile_m = a.tile_k = a.tile_n = tile;
  a.in_dtype = dtype::f16;
  a.a_addr = 0x1000;
  a.b_addr = 0x100000;
  a.c_addr = 0x200000;
  return a;
}

TEST(TileToken, APlainGemmTileIsOneSegmentOfItsWords) {
  const pipeline_plan plan = generate_gemm_plan(gemm(256, 128));
  ASSERT_EQ(plan.tiles.size(), 8u);
  // DMA_READ A, DMA_READ B, FETCH, GEMM; the last K tile adds STORE, DMA_WRITE.
  EXPECT_EQ(plan.tiles[0].stages.size(), 4u);
  EXPECT_EQ(plan.tiles[1].stages.size(), 6u);
  // The root pointer, the token, the list's tag word, the stages.
  const size_t stage = capnp::sizeInWords<wire::Stage>();
  EXPECT_EQ(token_words(plan.tiles[0]), 1 + capnp::sizeInWords<wire::TileToken>() + 1 + 4 * stage);
  EXPECT_EQ(token_words(plan.tiles[1]) - token_words(plan.tiles[0]), 2 * stage);
  expect_tokens_fit(plan);
}

TEST(TileToken, PinnedOperandsAndAnEpilogueOperandFitTheirSegment) {
  gemm_plan_args a = gemm(256, 128);
  a.a_pinned = true;
  a.b_pinned = true;
  tensor_view bias;
  bias.address = 0x300000;
  bias.rows = 1;
  bias.cols = 256;
  bias.row_stride = 512;
  bias.type = dtype::f16;
  a.epilogue.emplace_back(math_op::add, epilogue_scope::output_tile, bias);
  a.epilogue.emplace_back(math_op::scale, epilogue_scope::output_tile, std::nullopt, 0.5);
  const pipeline_plan plan = generate_gemm_plan(a);
  bool pinned = false, operand = false, scaled = false;
  for (const tile_plan& t : plan.tiles)
    for (const stage& s : t.stages) {
      pinned |= s.params.pinned_a.has_value() && s.params.pinned_b.has_value();
      operand |= s.params.operand_block.has_value();
      scaled |= s.params.value == 0.5;
    }
  ASSERT_TRUE(pinned && operand && scaled); // every kind of operand the token carries
  expect_tokens_fit(plan);
}

} // namespace
} // namespace kb
