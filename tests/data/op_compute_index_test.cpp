// The Phase 2 kernels of index and mask tensors, index reductions and scans
// (op_record.hpp, docs/adr/0026), against values worked by hand.

#include "runtime/data/op_compute.hpp"

#include "op_bench.hpp"
#include "op_builders.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace kb {
namespace {

using test::bench;
using test::f32;

using test::math_op;

const float nan = std::numeric_limits<float>::quiet_NaN();

TEST(op_compute_index, arange_counts_along_its_axis_from_the_scalar) {
  bench b;
  auto row = math_op(1, 0, math_fn::arange, {}, packed_view(0, 1, 4, dtype::i32));
  row.scalar = 10;
  EXPECT_EQ(b.run(row), (std::vector<float>{10, 11, 12, 13}));
  auto col = math_op(2, 0, math_fn::arange, {}, packed_view(64, 3, 1, dtype::i32));
  col.axis = 0;
  col.scalar = -1;
  EXPECT_EQ(b.run(col), (std::vector<float>{-1, 0, 1}));
  EXPECT_EQ(flops(row), 0u);
}

TEST(op_compute_index, full_writes_only_its_strided_view) {
  bench b;
  const tensor_view all = b.put(f32(0, 2, 4), {1, 2, 3, 4, 5, 6, 7, 8});
  auto fill = math_op(1, 0, math_fn::full, {}, all.block(0, 1, 2, 2)); // columns 1 and 2
  fill.scalar = -0.5;
  b.run(fill);
  EXPECT_EQ(load_f32(b.m, all), (std::vector<float>{1, -0.5f, -0.5f, 4, 5, -0.5f, -0.5f, 8}));
  // As an f16 it rounds as a store does: 0.1 -> 0.0999755859375.
  auto h = math_op(2, 0, math_fn::full, {}, packed_view(256, 1, 1, dtype::f16));
  h.scalar = 0.1;
  EXPECT_EQ(b.run(h), (std::vector<float>{0.0999755859375f}));
}

TEST(op_compute_index, comparisons_broadcast_and_write_one_or_zero_nan_compares_false) {
  bench b;
  const auto x = b.put(f32(0, 2, 3), {1, 2, nan, 4, 5, 6});
  const auto k = b.put(f32(64, 1, 1), {2});
  const auto out = packed_view(128, 2, 3, dtype::i8);
  const std::vector<std::pair<math_fn, std::vector<float>>> want{
    {math_fn::lt, {1, 0, 0, 0, 0, 0}}, {math_fn::le, {1, 1, 0, 0, 0, 0}},
    {math_fn::gt, {0, 0, 0, 1, 1, 1}}, {math_fn::ge, {0, 1, 0, 1, 1, 1}},
    {math_fn::eq, {0, 1, 0, 0, 0, 0}}, {math_fn::ne, {1, 0, 1, 1, 1, 1}},
  };
  for (const auto& [fn, values] : want)
    EXPECT_EQ(b.run(math_op(1, 0, fn, {x, k}, out)), values) << to_string(fn);
}

TEST(op_compute_index, logical_ops_treat_nonzero_and_nan_as_true) {
  bench b;
  const auto a = b.put(f32(0, 1, 4), {0, 0, 3, nan});
  const auto c = b.put(f32(64, 1, 4), {0, -1, 0, 1});
  const auto out = packed_view(128, 1, 4, dtype::i8);
  EXPECT_EQ(b.run(math_op(1, 0, math_fn::logical_and, {a, c}, out)),
            (std::vector<float>{0, 0, 0, 1}));
  EXPECT_EQ(b.run(math_op(2, 0, math_fn::logical_or, {a, c}, out)),
            (std::vector<float>{0, 1, 1, 1}));
  EXPECT_EQ(b.run(math_op(3, 0, math_fn::logical_not, {a}, out)),
            (std::vector<float>{1, 1, 0, 0}));
}

TEST(op_compute_index, argmax_and_argmin_take_the_first_index_on_ties_and_nan_wins) {
  bench b;
  const auto x = b.put(f32(0, 3, 4), {1, 7, 7, 0,  //
                                      5, nan, 9, nan, //
                                      -2, -2, 3, 3});
  auto rows_max = math_op(1, 0, math_fn::argmax, {x}, packed_view(128, 3, 1, dtype::i32));
  EXPECT_EQ(b.run(rows_max), (std::vector<float>{1, 1, 2}));
  auto rows_min = math_op(2, 0, math_fn::argmin, {x}, packed_view(128, 3, 1, dtype::i32));
  EXPECT_EQ(b.run(rows_min), (std::vector<float>{3, 1, 0}));
  auto cols_max = math_op(3, 0, math_fn::argmax, {x}, packed_view(128, 1, 4, dtype::i32));
  cols_max.axis = 0;
  EXPECT_EQ(b.run(cols_max), (std::vector<float>{1, 1, 1, 1}));
  auto cols_min = math_op(4, 0, math_fn::argmin, {x}, packed_view(128, 1, 4, dtype::i32));
  cols_min.axis = 0;
  EXPECT_EQ(b.run(cols_min), (std::vector<float>{2, 1, 2, 1}));
  EXPECT_EQ(flops(cols_min), 12u);
}

TEST(op_compute_index, cumsum_runs_along_either_axis_in_f32) {
  bench b;
  const auto x = b.put(f32(0, 2, 3), {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(b.run(math_op(1, 0, math_fn::cumsum, {x}, f32(64, 2, 3))),
            (std::vector<float>{1, 3, 6, 4, 9, 15}));
  auto down = math_op(2, 0, math_fn::cumsum, {x}, f32(64, 2, 3));
  down.axis = 0;
  EXPECT_EQ(b.run(down), (std::vector<float>{1, 2, 3, 5, 7, 9}));
  // f32 sums in index order: 2^24 + 1 + 1 stays 2^24 (each 1 is lost).
  const auto big = b.put(f32(128, 1, 3), {16777216.0f, 1, 1});
  EXPECT_EQ(b.run(math_op(3, 0, math_fn::cumsum, {big}, f32(192, 1, 3))),
            (std::vector<float>{16777216.0f, 16777216.0f, 16777216.0f}));
}

TEST(op_compute_index, check_refuses_wrong_shapes_and_axes) {
  auto c = math_op(1, 0, math_fn::cumsum, {f32(0, 2, 3)}, f32(64, 3, 2));
  EXPECT_EQ(check(c), "cumsum: input 2x3 and out 3x2 differ in shape");
  auto a = math_op(2, 0, math_fn::argmax, {f32(0, 2, 3)}, packed_view(64, 1, 3, dtype::i32));
  EXPECT_EQ(check(a), "argmax along axis 1 of a 2x3 input gives 2x1, out is 1x3");
  auto r = math_op(3, 0, math_fn::arange, {}, packed_view(0, 1, 4, dtype::i32));
  r.axis = 2;
  EXPECT_EQ(check(r), "arange runs along axis 0 or 1, not 2");
  auto l = math_op(4, 0, math_fn::lt, {f32(0, 2, 3)}, packed_view(64, 2, 3, dtype::i8));
  EXPECT_EQ(check(l), "math lt takes 2 inputs, the record has 1");
}

} // namespace
} // namespace kb
