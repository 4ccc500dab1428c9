// The op record of each pipeline stage (runtime/pipeline/stage_ops), from
// hand-built tile tokens: exact records for DMA reads and writes (to a slot
// or a kernel's TCM tensor), GEMM (accumulate from k, accumulator slot =
// slot - k), epilogue and command MATH, STORE; no record for FETCH; clear
// errors for what the replay cannot follow.

#include "runtime/pipeline/stage_ops.hpp"
#include "runtime/pipeline/token.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace kb {
namespace {

using ::testing::ThrowsMessage;
using stage_ops::region;
using stage_ops::slot_address;

const std::string pe = "sip0.cube0.pe2";
constexpr uint32_t pe_id = 2;

stage make(stage_type t, uint32_t tm, uint32_t tk, uint32_t tn,
           dtype in = dtype::f16, dtype out = dtype::f16) {
  stage s;
  s.type = t;
  s.unit = unit_of(t);
  s.params.tm = tm;
  s.params.tk = tk;
  s.params.tn = tn;
  s.params.in_dtype = in;
  s.params.out_dtype = out;
  return s;
}

stage dma(stage_type t, char operand, uint64_t address, uint32_t rows, uint64_t row_bytes,
          uint64_t stride, dtype type = dtype::f16) {
  stage s = make(t, 0, 0, 0, type, type);
  s.params.operand = operand;
  s.params.address = address;
  s.params.rows = rows;
  s.params.row_bytes = row_bytes;
  s.params.row_stride_bytes = stride;
  s.params.bytes = rows * row_bytes;
  return s;
}

/// A token of `stages` (command 2, tile 3) with the scheduler's slot and k.
message_body token(std::vector<stage> stages, uint32_t slot, uint32_t k) {
  tile_plan t;
  t.tile_id = 3;
  t.k = k;
  t.stages = std::move(stages);
  message_body b = make_token(t, 2, 0);
  b.root_builder<wire::TileToken>().setSlot(slot);
  return b;
}

/// The op of stage `index` of `body`, served from 10 to 25 ns, id 99.
std::optional<op_record> op(const message_body& body, unsigned index) {
  auto t = body.root<wire::TileToken>();
  const auto unit = static_cast<unit_role>(t.getStages()[index].getUnit());
  return stage_ops::op_of(t, t.getStages()[index], pe + "." + std::string(unit_name(unit)), pe_id,
                          SimTime{10000}, SimTime{25000}, 99);
}

/// A GEMM tile's stages: DMA_READ A, DMA_READ B, FETCH, GEMM, [MATH], STORE, DMA_WRITE.
std::vector<stage> gemm_tile(uint32_t tm, uint32_t tk, uint32_t tn, bool read_a = true,
                             bool read_b = true) {
  std::vector<stage> s;
  if (read_a)
    s.push_back(dma(stage_type::dma_read, 'A', 0x1000, tm, tk * 2, 512));
  if (read_b)
    s.push_back(dma(stage_type::dma_read, 'B', 0x9000, tk, tn * 2, 256));
  s.push_back(make(stage_type::fetch, tm, tk, tn));
  s.push_back(make(stage_type::gemm, tm, tk, tn));
  return s;
}

TEST(StageOps, PeKeyPacksSipCubeAndPe) {
  EXPECT_EQ(stage_ops::pe_key({0, 0, 2}, "sip0.cube0.pe2.pe_dma"), 2u);
  EXPECT_EQ(stage_ops::pe_key({1, 3, 5}, "sip1.cube3.pe5.pe_gemm"), (1u << 16) | (3u << 8) | 5u);
  EXPECT_THAT([] { stage_ops::pe_key({0, 0, {}}, "sip0.cube0.xbar"); },
              ThrowsMessage<std::runtime_error>(
                "op log: 'sip0.cube0.xbar' is not a unit of a PE (sipS.cubeC.peP.unit)"));
}

TEST(StageOps, SlotAddressesLieInSpaceThreeByPeRegionAndSlot) {
  EXPECT_EQ(slot_address(2, region::a, 0), uint64_t{3} << 60 | uint64_t{2} << 36);
  EXPECT_EQ(slot_address(2, region::c, 5),
            uint64_t{3} << 60 | uint64_t{2} << 36 | uint64_t{3} << 34 | uint64_t{5} << 20);
  // The slot number wraps at 2^14.
  EXPECT_EQ(slot_address(2, region::b, stage_ops::slots + 1), slot_address(2, region::b, 1));
}

TEST(StageOps, DmaReadOfOperandAGoesToItsSlot) {
  // A 4x8 f16 tile of A, rows 512 B apart in HBM.
  const auto t = token({dma(stage_type::dma_read, 'A', 0x1000, 4, 16, 512)}, 7, 0);
  op_record want;
  want.id = 99;
  want.t_start_ps = 10000;
  want.t_end_ps = 25000;
  want.component = pe + ".pe_dma";
  want.kind = op_kind::memory;
  want.op_name = "dma_read";
  want.inputs = {tensor_view{0x1000, 4, 8, 512, dtype::f16}};
  want.out = packed_view(slot_address(pe_id, region::a, 7), 4, 8, dtype::f16);
  EXPECT_EQ(op(t, 0), want);
}

TEST(StageOps, DmaReadOfOperandBGoesToTheBSlot) {
  const auto t = token({dma(stage_type::dma_read, 'B', 0x9000, 8, 32, 256)}, 7, 0);
  const auto r = op(t, 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, packed_view(slot_address(pe_id, region::b, 7), 8, 16, dtype::f16));
  EXPECT_EQ(r->inputs, (std::vector<tensor_view>{{0x9000, 8, 16, 256, dtype::f16}}));
}

TEST(StageOps, AKernelLoadGoesToItsTcmTensor) {
  stage s = dma(stage_type::dma_read, 0, 0x2000, 2, 64, 128, dtype::f32);
  s.params.local_address = 0x2000000000400000; // tcm of sip0.cube0.pe0, offset 4 MiB
  s.params.want_data = true;
  const auto r = op(token({s}, 7, 0), 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->op_name, "dma_read");
  EXPECT_EQ(r->inputs, (std::vector<tensor_view>{{0x2000, 2, 16, 128, dtype::f32}}));
  EXPECT_EQ(r->out, packed_view(0x2000000000400000, 2, 16, dtype::f32));
}

TEST(StageOps, ADmaReadWithoutOperandOrTcmTensorIsAnError) {
  const auto t = token({dma(stage_type::dma_read, 0, 0x1000, 1, 64, 64)}, 7, 0);
  EXPECT_THAT([&] { op(t, 0); },
              ThrowsMessage<std::runtime_error>(
                "op log: sip0.cube0.pe2.pe_dma tile 3 of command 2 (dma_read): a DMA read of "
                "operand 0 has no slot"));
}

TEST(StageOps, DmaRowsOfPartElementsAreAnError) {
  const auto t = token({dma(stage_type::dma_read, 'A', 0x1000, 2, 15, 64, dtype::f32)}, 7, 0);
  EXPECT_THAT([&] { op(t, 0); },
              ThrowsMessage<std::runtime_error>(
                "op log: sip0.cube0.pe2.pe_dma tile 3 of command 2 (dma_read): 15 B rows are "
                "not whole f32 elements"));
}

TEST(StageOps, FetchMovesNoDataOfItsOwn) {
  const auto t = token(gemm_tile(4, 8, 16), 7, 0);
  EXPECT_EQ(op(t, 2), std::nullopt);
}

TEST(StageOps, TheFirstKTileOverwritesTheAccumulator) {
  const auto t = token(gemm_tile(4, 8, 16), 7, 0);
  op_record want;
  want.id = 99;
  want.t_start_ps = 10000;
  want.t_end_ps = 25000;
  want.component = pe + ".pe_gemm";
  want.kind = op_kind::gemm;
  want.op_name = "gemm_f16";
  want.inputs = {packed_view(slot_address(pe_id, region::a, 7), 4, 8, dtype::f16),
                 packed_view(slot_address(pe_id, region::b, 7), 8, 16, dtype::f16)};
  want.out = packed_view(slot_address(pe_id, region::acc, 7), 4, 16, dtype::f32);
  want.accumulate = false;
  EXPECT_EQ(op(t, 3), want);
}

TEST(StageOps, LaterKTilesAccumulateIntoTheFirstKTilesAccumulator) {
  // Tile number 9 is K tile 2 of its output tile: the output tile's first K
  // tile was number 7, whose accumulator slot it adds to.
  const auto r = op(token(gemm_tile(4, 8, 16), 9, 2), 3);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->accumulate);
  EXPECT_EQ(r->out, packed_view(slot_address(pe_id, region::acc, 7), 4, 16, dtype::f32));
  EXPECT_EQ(r->inputs[0], packed_view(slot_address(pe_id, region::a, 9), 4, 8, dtype::f16));
  EXPECT_EQ(r->inputs[1], packed_view(slot_address(pe_id, region::b, 9), 8, 16, dtype::f16));
}

TEST(StageOps, TheAccumulatorSlotWrapsAroundBelowZero) {
  // Slot 1 at k = 3: the first K tile had slot 2^14 - 2.
  const auto r = op(token(gemm_tile(4, 8, 16), 1, 3), 3);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out.address, slot_address(pe_id, region::acc, stage_ops::slots - 2));
}

TEST(StageOps, APinnedOperandIsReadInPlaceFromItsBlock) {
  // A pinned: no DMA_READ A; the GEMM stage names A's 4x8 f16 block (rows
  // 1 KiB apart in TCM); B comes through its slot as usual.
  auto stages = gemm_tile(4, 8, 16, false, true);
  const tensor_view a_block{0x2000000000000100ull, 4, 8, 1024, dtype::f16};
  stages.back().params.pinned_a = a_block;
  const auto r = op(token(stages, 7, 0), 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, op_kind::gemm);
  EXPECT_EQ(r->inputs, (std::vector<tensor_view>{
                         a_block, packed_view(slot_address(pe_id, region::b, 7), 8, 16,
                                              dtype::f16)}));
  // Both pinned: both blocks, no slot.
  auto both = gemm_tile(4, 8, 16, false, false);
  const tensor_view b_block{0x2000000000008000ull, 8, 16, 64, dtype::f16};
  both.back().params.pinned_a = a_block;
  both.back().params.pinned_b = b_block;
  const auto r2 = op(token(both, 7, 0), 1);
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->inputs, (std::vector<tensor_view>{a_block, b_block}));
}

TEST(StageOps, AGemmOperandNeitherReadNorPinnedIsAnError) {
  const auto a_missing = token(gemm_tile(4, 8, 16, false, true), 7, 0);
  EXPECT_THAT([&] { op(a_missing, 2); },
              ThrowsMessage<std::runtime_error>(
                "op log: sip0.cube0.pe2.pe_gemm tile 3 of command 2 (gemm): operand A is "
                "neither read by a DMA stage nor pinned with a block"));
  auto wrong = gemm_tile(4, 8, 16, true, false);
  wrong.back().params.pinned_b = tensor_view{0x8000, 8, 8, 16, dtype::f16};
  const auto b_wrong = token(wrong, 7, 0);
  EXPECT_THAT([&] { op(b_wrong, 2); },
              ThrowsMessage<std::runtime_error>(
                "op log: sip0.cube0.pe2.pe_gemm tile 3 of command 2 (gemm): its pinned B block "
                "is 8x8, not 8x16"));
}

TEST(StageOps, ATileLargerThanASlotIsAnError) {
  // 1024 x 1024 f16 is 2 MiB; a slot holds 1 MiB.
  const auto t = token(gemm_tile(1024, 1024, 64), 7, 0);
  EXPECT_THAT([&] { op(t, 0); },
              ThrowsMessage<std::runtime_error>(
                "op log: sip0.cube0.pe2.pe_dma tile 3 of command 2 (dma_read): a 1024x1024 f16 "
                "tile takes 2097152 B; the replay's operand slots hold 1048576 B (use smaller "
                "tiles to verify)"));
}

TEST(StageOps, AnEpilogueOpWorksOnTheAccumulatorInPlace) {
  auto stages = gemm_tile(4, 8, 16);
  stage m = make(stage_type::math, 4, 8, 16);
  m.params.op = math_op::relu;
  m.params.elements = 64;
  m.params.scope = epilogue_scope::output_tile;
  stages.push_back(m);
  const auto r = op(token(stages, 9, 2), 4);
  ASSERT_TRUE(r);
  const tensor_view acc = packed_view(slot_address(pe_id, region::acc, 7), 4, 16, dtype::f32);
  EXPECT_EQ(r->kind, op_kind::math);
  EXPECT_EQ(r->fn, math_fn::relu);
  EXPECT_EQ(r->op_name, "relu");
  EXPECT_EQ(r->out, acc);
  EXPECT_EQ(r->inputs, std::vector<tensor_view>{acc});
  EXPECT_EQ(r->component, pe + ".pe_math");
}

TEST(StageOps, AMathCommandReadsItsInputSlot) {
  stage m = make(stage_type::math, 4, 0, 16, dtype::bf16, dtype::bf16);
  m.params.op = math_op::exp;
  m.params.elements = 64;
  const auto r = op(token({dma(stage_type::dma_read, 'A', 0x1000, 4, 32, 32, dtype::bf16),
                           make(stage_type::fetch, 4, 0, 16), m},
                          11, 0),
                    2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->fn, math_fn::exp);
  EXPECT_EQ(r->op_name, "exp");
  EXPECT_EQ(r->inputs, std::vector<tensor_view>{packed_view(
                         slot_address(pe_id, region::a, 11), 4, 16, dtype::bf16)});
  EXPECT_EQ(r->out, packed_view(slot_address(pe_id, region::acc, 11), 4, 16, dtype::f32));
}

TEST(StageOps, AnEpilogueOpWithoutItsOperandIsAnError) {
  auto stages = gemm_tile(4, 8, 16);
  stage m = make(stage_type::math, 4, 8, 16);
  m.params.op = math_op::bias;
  m.params.scope = epilogue_scope::output_tile;
  stages.push_back(m);
  const auto t = token(stages, 7, 0);
  EXPECT_THAT([&] { op(t, 4); },
              ThrowsMessage<std::runtime_error>(
                "op log: sip0.cube0.pe2.pe_math tile 3 of command 2 (math): math op 'bias' has "
                "no operand in its epilogue, so the replay cannot compute it (give the "
                "epilogue op an operand tensor)"));
}

/// The record of an epilogue MATH stage `op` with `block` / `value`.
op_record epilogue(math_op o, std::optional<tensor_view> block, double value = 1.0) {
  auto stages = gemm_tile(4, 8, 16);
  stage m = make(stage_type::math, 4, 8, 16);
  m.params.op = o;
  m.params.scope = epilogue_scope::output_tile;
  m.params.operand_block = block;
  m.params.value = value;
  stages.push_back(m);
  const auto r = op(token(stages, 9, 2), 4);
  EXPECT_TRUE(r);
  return r.value_or(op_record{});
}

TEST(StageOps, EpilogueOpsWithAnOperandOrAValueBecomeBinaryOrScaleOps) {
  const tensor_view acc = packed_view(slot_address(pe_id, region::acc, 7), 4, 16, dtype::f32);
  const tensor_view row{0x7000, 1, 16, 64, dtype::f32};
  const tensor_view tile{0x9000, 4, 16, 256, dtype::f16};
  const op_record bias = epilogue(math_op::bias, row);
  EXPECT_EQ(bias.fn, math_fn::add);
  EXPECT_EQ(bias.inputs, (std::vector<tensor_view>{acc, row}));
  EXPECT_EQ(bias.out, acc);
  const op_record mul = epilogue(math_op::mul, tile);
  EXPECT_EQ(mul.fn, math_fn::mul);
  EXPECT_EQ(mul.inputs, (std::vector<tensor_view>{acc, tile}));
  const op_record dq = epilogue(math_op::dequant, row);
  EXPECT_EQ(dq.fn, math_fn::mul);
  EXPECT_EQ(dq.inputs, (std::vector<tensor_view>{acc, row}));
  const op_record dq_scalar = epilogue(math_op::dequant, std::nullopt, 0.25);
  EXPECT_EQ(dq_scalar.fn, math_fn::scale);
  EXPECT_EQ(dq_scalar.scalar, 0.25);
  EXPECT_EQ(dq_scalar.inputs, std::vector<tensor_view>{acc});
  const op_record scale = epilogue(math_op::scale, std::nullopt, -3.5);
  EXPECT_EQ(scale.fn, math_fn::scale);
  EXPECT_EQ(scale.scalar, -3.5);
  EXPECT_EQ(scale.op_name, "scale");
}

TEST(StageOps, AMathStageWithoutAnOpIsAnError) {
  const auto t = token({make(stage_type::math, 4, 0, 16)}, 7, 0);
  EXPECT_THAT([&] { op(t, 0); },
              ThrowsMessage<std::runtime_error>(
                "op log: sip0.cube0.pe2.pe_math tile 3 of command 2 (math): a MATH stage "
                "without an op"));
}

TEST(StageOps, StoreConvertsTheAccumulatorIntoTheCSlot) {
  auto stages = gemm_tile(4, 8, 16);
  for (auto& s : stages)
    s.params.out_dtype = dtype::bf16;
  stage st = make(stage_type::store, 4, 8, 16, dtype::f16, dtype::bf16);
  st.params.operand = 'C';
  stages.push_back(st);
  const auto r = op(token(stages, 9, 2), 4);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, op_kind::memory);
  EXPECT_EQ(r->op_name, "store");
  EXPECT_EQ(r->inputs, std::vector<tensor_view>{packed_view(
                         slot_address(pe_id, region::acc, 7), 4, 16, dtype::f32)});
  EXPECT_EQ(r->out, packed_view(slot_address(pe_id, region::c, 9), 4, 16, dtype::bf16));
}

TEST(StageOps, DmaWriteCopiesTheCSlotToGlobalMemory) {
  // C rows of 16 bf16 (32 B), 1024 B apart.
  stage w = dma(stage_type::dma_write, 'C', 0x40000, 4, 32, 1024, dtype::bf16);
  const auto r = op(token({w}, 9, 2), 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->op_name, "dma_write");
  EXPECT_EQ(r->out, (tensor_view{0x40000, 4, 16, 1024, dtype::bf16}));
  EXPECT_EQ(r->inputs, std::vector<tensor_view>{packed_view(
                         slot_address(pe_id, region::c, 9), 4, 16, dtype::bf16)});
}

TEST(StageOps, AKernelStoreWritesFromItsTcmTensor) {
  stage w = dma(stage_type::dma_write, 'C', 0x40000, 3, 16, 64, dtype::f32);
  w.params.local_address = 0x2000000000080000;
  const auto r = op(token({w}, 9, 0), 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, (tensor_view{0x40000, 3, 4, 64, dtype::f32}));
  EXPECT_EQ(r->inputs,
            std::vector<tensor_view>{packed_view(0x2000000000080000, 3, 4, dtype::f32)});
}

} // namespace
} // namespace kb
