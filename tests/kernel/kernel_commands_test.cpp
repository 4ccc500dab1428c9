// The PE commands a kernel's calls become (runtime/kernel/kernel_commands),
// field by field, by hand.

#include "runtime/kernel/kernel_commands.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

// A 4 x 8 f16 block of TCM at 0x100 (16 B rows), and global rows 64 B apart.
const tensor_view tile{0x100, 4, 8, 16, dtype::f16};

TEST(KernelCommands, ADmaReadIsOneStageOnTheDmaThatBringsItsBytesBack) {
  const stage st = dma_stage(true, 0x9000, 64, tile);
  EXPECT_EQ(st.type, stage_type::dma_read);
  EXPECT_EQ(st.unit, unit_role::dma);
  EXPECT_EQ(st.params.operand, 0);
  EXPECT_EQ(st.params.address, 0x9000u);
  EXPECT_EQ(st.params.row_stride_bytes, 64u);
  EXPECT_EQ(st.params.rows, 4u);
  EXPECT_EQ(st.params.row_bytes, 16u); // 8 f16
  EXPECT_EQ(st.params.bytes, 64u);     // 4 rows of 16 B
  EXPECT_EQ(st.params.tm, 4u);
  EXPECT_EQ(st.params.tn, 8u);
  EXPECT_EQ(st.params.in_dtype, dtype::f16);
  EXPECT_EQ(st.params.out_dtype, dtype::f16);
  EXPECT_EQ(st.params.local_address, 0x100u);
  EXPECT_TRUE(st.params.want_data);
}

TEST(KernelCommands, ADmaWriteIsOperandCAndBringsNothingBack) {
  const stage st = dma_stage(false, 0x9000, 64, tile);
  EXPECT_EQ(st.type, stage_type::dma_write);
  EXPECT_EQ(st.params.operand, 'C');
  EXPECT_FALSE(st.params.want_data);
  // Apart from those, the same fields as the read.
  stage read = dma_stage(true, 0x9000, 64, tile);
  read.type = stage_type::dma_write;
  read.params.operand = 'C';
  read.params.want_data = false;
  EXPECT_EQ(st, read);
}

TEST(KernelCommands, ADmasOpRecordCopiesBetweenTheGlobalRowsAndTheTile) {
  const tensor_view global{0x9000, 4, 8, 64, dtype::f16};
  const op_record r = dma_op(true, 0x9000, 64, tile);
  EXPECT_EQ(r.kind, op_kind::memory);
  EXPECT_EQ(r.op_name, "dma_read");
  EXPECT_EQ(r.inputs, std::vector<tensor_view>{global});
  EXPECT_EQ(r.out, tile);
  const op_record w = dma_op(false, 0x9000, 64, tile);
  EXPECT_EQ(w.op_name, "dma_write");
  EXPECT_EQ(w.inputs, std::vector<tensor_view>{tile});
  EXPECT_EQ(w.out, global);
  // An atomic add: out = out + tile at the memory.
  const op_record a = dma_op(false, 0x9000, 64, tile, math_fn::add);
  EXPECT_EQ(a.kind, op_kind::math);
  EXPECT_EQ(a.fn, math_fn::add);
  EXPECT_EQ(a.op_name, "add");
  EXPECT_EQ(a.inputs, (std::vector<tensor_view>{global, tile}));
  EXPECT_EQ(a.out, global);
}

TEST(KernelCommands, MathAndGemmStagesRunOnTheirUnitsAsTheLastStepOfTheirTile) {
  const stage m = math_stage(32, 64, dtype::f16, dtype::f32, 2048, math_op::exp);
  EXPECT_EQ(m.unit, unit_role::math);
  EXPECT_EQ(m.type, stage_type::math);
  EXPECT_EQ(m.params.tm, 32u);
  EXPECT_EQ(m.params.tn, 64u);
  EXPECT_EQ(m.params.in_dtype, dtype::f16);
  EXPECT_EQ(m.params.out_dtype, dtype::f32);
  EXPECT_TRUE(m.params.last_k);
  EXPECT_EQ(m.params.elements, 2048u);
  EXPECT_EQ(m.params.op, math_op::exp);
  const stage g = gemm_stage(32, 64, 128, dtype::bf16, dtype::f32);
  EXPECT_EQ(g.unit, unit_role::gemm);
  EXPECT_EQ(g.type, stage_type::gemm);
  EXPECT_EQ(g.params.tm, 32u);
  EXPECT_EQ(g.params.tn, 64u);
  EXPECT_EQ(g.params.tk, 128u);
  EXPECT_EQ(g.params.in_dtype, dtype::bf16);
  EXPECT_EQ(g.params.out_dtype, dtype::f32);
  EXPECT_TRUE(g.params.last_k);
  EXPECT_FALSE(g.params.op.has_value()); // a GEMM's rate is its engine's, not a MATH op's
}

} // namespace
} // namespace kb
