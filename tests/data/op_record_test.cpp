// op_record: names, arity, validation messages, flop counts.

#include "runtime/data/op_record.hpp"

#include "op_builders.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::gemm_op;
using test::math_op;
using test::memory_op;

tensor_view f32(uint64_t at, uint32_t rows, uint32_t cols) {
  return packed_view(at, rows, cols, dtype::f32);
}

TEST(op_record, names_round_trip_and_unknown_names_are_refused) {
  for (unsigned i = 0; i < math_fn_count; ++i) {
    const auto f = static_cast<math_fn>(i);
    EXPECT_EQ(parse_math_fn(to_string(f)), f);
  }
  EXPECT_EQ(to_string(math_fn::add_scalar), "add_scalar");
  EXPECT_EQ(to_string(math_fn::row_max), "row_max");
  EXPECT_EQ(parse_math_fn("gelu"), std::nullopt);
  EXPECT_EQ(parse_op_kind("gemm"), op_kind::gemm);
  EXPECT_EQ(to_string(op_kind::memory), "memory");
  EXPECT_EQ(parse_op_kind("dma"), std::nullopt);
  EXPECT_EQ(arity(math_fn::where), 3u);
  EXPECT_EQ(arity(math_fn::max), 2u);
  EXPECT_EQ(arity(math_fn::scale), 1u);
  EXPECT_EQ(arity(math_fn::sum), 1u);
  EXPECT_TRUE(is_reduction(math_fn::row_min));
  EXPECT_FALSE(is_reduction(math_fn::min));
}

TEST(op_record, well_formed_records_pass) {
  EXPECT_EQ(check(memory_op(1, 0, f32(0, 4, 4), packed_view(64, 4, 4, dtype::f16))), "");
  EXPECT_EQ(check(gemm_op(2, 0, f32(0, 4, 8), f32(128, 8, 2), f32(256, 4, 2), true)), "");
  EXPECT_EQ(check(math_op(3, 0, math_fn::add, {f32(0, 4, 4), f32(64, 1, 4)}, f32(128, 4, 4))), "");
  EXPECT_EQ(check(math_op(4, 0, math_fn::where, {f32(0, 4, 1), f32(64, 1, 1), f32(128, 4, 4)},
                          f32(256, 4, 4))),
            "");
  auto col_sum = math_op(5, 0, math_fn::sum, {f32(0, 4, 8)}, f32(256, 1, 8));
  col_sum.axis = 0;
  EXPECT_EQ(check(col_sum), "");
}

TEST(op_record, malformed_records_are_described) {
  EXPECT_EQ(check(gemm_op(1, 0, f32(0, 4, 8), f32(128, 7, 4), f32(256, 4, 4))),
            "gemm shapes do not chain: a 4x8 * b 7x4 -> out 4x4");
  auto two = memory_op(2, 0, f32(0, 2, 2), f32(64, 2, 2));
  two.inputs.push_back(f32(128, 2, 2));
  EXPECT_EQ(check(two), "a memory op takes 1 input, the record has 2");
  EXPECT_EQ(check(memory_op(2, 0, f32(0, 2, 2), f32(64, 4, 1))),
            "memory op copies 2x2 into 4x1: the shapes differ");
  EXPECT_EQ(check(math_op(3, 0, math_fn::add, {f32(0, 4, 4), f32(64, 3, 1)}, f32(128, 4, 4))),
            "add: input 1 of shape 3x1 does not broadcast to out 4x4 (same shape, 1x4, 4x1 or 1x1)");
  EXPECT_EQ(check(math_op(4, 0, math_fn::where, {f32(0, 4, 4), f32(64, 4, 4)}, f32(128, 4, 4))),
            "math where takes 3 inputs, the record has 2");
  EXPECT_EQ(check(math_op(4, 0, math_fn::exp, {f32(0, 4, 4)}, f32(128, 4, 2))),
            "exp: input 4x4 and out 4x2 differ in shape");
  auto sum = math_op(5, 0, math_fn::sum, {f32(0, 4, 8)}, f32(256, 4, 1));
  sum.axis = 2;
  EXPECT_EQ(check(sum), "sum reduces along axis 0 or 1, not 2");
  sum.axis = 0;
  EXPECT_EQ(check(sum), "sum along axis 0 of a 4x8 input gives 1x8, out is 4x1");
  auto late = memory_op(6, 10, f32(0, 1, 1), f32(64, 1, 1));
  late.t_end_ps = 5;
  EXPECT_EQ(check(late), "t_end 5 ps is before t_start 10 ps");
  EXPECT_EQ(check(memory_op(7, 0, tensor_view{0, 2, 4, 8, dtype::f32}, f32(64, 2, 4))),
            "input 0: view 0x0 2x4 f32 stride 8: the row stride 8 is below the row size 16 bytes");
}

TEST(op_record, flops_and_reads_follow_the_kind) {
  auto g = gemm_op(1, 0, f32(0, 4, 8), f32(128, 8, 4), f32(256, 4, 4));
  EXPECT_EQ(flops(g), 256u); // 2 * 4 * 4 * 8
  EXPECT_EQ(reads(g).size(), 2u);
  g.accumulate = true;
  EXPECT_EQ(flops(g), 272u); // + 16 additions
  ASSERT_EQ(reads(g).size(), 3u);
  EXPECT_EQ(reads(g)[2], f32(256, 4, 4));
  EXPECT_EQ(flops(math_op(2, 0, math_fn::sum, {f32(0, 4, 8)}, f32(256, 4, 1))), 32u);
  EXPECT_EQ(flops(math_op(3, 0, math_fn::exp, {f32(0, 4, 4)}, f32(256, 4, 4))), 16u);
  EXPECT_EQ(flops(memory_op(4, 0, f32(0, 4, 4), f32(64, 4, 4))), 0u);
  EXPECT_EQ(describe(memory_op(4, 0, f32(0, 4, 4), f32(64, 4, 4), "sip0.pe1.dma")),
            "op 4 (sip0.pe1.dma dma)");
}

} // namespace
} // namespace kb
