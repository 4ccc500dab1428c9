// The Phase 2 kernels, one op at a time, against values worked by hand.

#include "runtime/data/op_compute.hpp"

#include "op_bench.hpp"
#include "op_builders.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace kb {
namespace {

using test::bench;
using test::f32;

using test::gemm_op;
using test::math_op;
using test::memory_op;

constexpr float inf = std::numeric_limits<float>::infinity();
const float nan = std::numeric_limits<float>::quiet_NaN();

/// Element-wise equality that treats NaN as equal to NaN.
void expect_same(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " = " << got[i];
    else
      EXPECT_EQ(got[i], want[i]) << "element " << i;
  }
}

TEST(op_compute, gemm_multiplies_and_accumulates_in_f32) {
  bench b;
  const auto a = b.put(f32(0, 2, 2), {1, 2, 3, 4});
  const auto x = b.put(f32(64, 2, 2), {5, 6, 7, 8});
  const auto c = b.put(f32(128, 2, 2), {1, 1, 1, 1});
  EXPECT_EQ(b.run(gemm_op(1, 0, a, x, c)), (std::vector<float>{19, 22, 43, 50}));
  b.put(c, {1, 1, 1, 1});
  EXPECT_EQ(b.run(gemm_op(2, 0, a, x, c, true)), (std::vector<float>{20, 23, 44, 51}));
  EXPECT_EQ(execute(gemm_op(2, 0, a, x, c, true), b.m, b.s), 20u); // 2*2*2*2 + 4
}

/// The i32 elements of `v`, exactly.
std::vector<int64_t> ints(const memory_image& m, const tensor_view& v) {
  const auto bytes = load_bytes(m, v);
  std::vector<int64_t> out(v.elements());
  for (size_t i = 0; i < out.size(); ++i) {
    int32_t x;
    std::memcpy(&x, bytes.data() + 4 * i, 4);
    out[i] = x;
  }
  return out;
}

void put_ints(memory_image& m, const tensor_view& v, const std::vector<int32_t>& x) {
  std::vector<uint8_t> bytes(x.size() * dtype_bytes(v.type));
  for (size_t i = 0; i < x.size(); ++i) {
    if (v.type == dtype::i8)
      bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(x[i]));
    else
      std::memcpy(bytes.data() + 4 * i, &x[i], 4);
  }
  store_bytes(m, v, bytes);
}

TEST(op_compute, integer_gemm_sums_exactly_in_i32_where_f32_would_round) {
  // 1 x 4096 i8 of 127 times 4096 x 1 of 127 except a last 1: 4095 x 16129
  // + 127 = 66048382, beyond 2^24 and not a multiple of 4 (the f32 spacing
  // there): an f32 sum cannot hold it.
  bench b;
  const uint32_t k = 4096;
  const tensor_view a = packed_view(0, 1, k, dtype::i8);
  const tensor_view x = packed_view(8192, k, 1, dtype::i8);
  const tensor_view c = packed_view(16384, 1, 1, dtype::i32);
  std::vector<int32_t> bv(k, 127);
  bv.back() = 1;
  put_ints(b.m, a, std::vector<int32_t>(k, 127));
  put_ints(b.m, x, bv);
  const int64_t exact = int64_t{4095} * 16129 + 127;
  ASSERT_NE(static_cast<double>(static_cast<float>(exact)), static_cast<double>(exact));
  EXPECT_EQ(check(gemm_op(1, 0, a, x, c)), "");
  execute(gemm_op(1, 0, a, x, c), b.m, b.s);
  EXPECT_EQ(ints(b.m, c), std::vector<int64_t>{exact});
  // Accumulating onto it stays exact too.
  execute(gemm_op(2, 0, a, x, c, true), b.m, b.s);
  EXPECT_EQ(ints(b.m, c), std::vector<int64_t>{2 * exact});
}

TEST(op_compute, integer_gemm_wraps_like_i32_hardware_and_transposes) {
  bench b;
  // 65536 x 65536 + 65536 x 1 = 2^32 + 65536, which wraps to 65536.
  const tensor_view a = packed_view(0, 1, 2, dtype::i32);
  const tensor_view x = packed_view(64, 2, 1, dtype::i32);
  const tensor_view c = packed_view(128, 1, 1, dtype::i32);
  put_ints(b.m, a, {65536, 65536});
  put_ints(b.m, x, {65536, 1});
  execute(gemm_op(1, 0, a, x, c), b.m, b.s);
  EXPECT_EQ(ints(b.m, c), std::vector<int64_t>{65536});
  // INT32_MAX + 1 x 1 wraps to INT32_MIN.
  const tensor_view one = packed_view(192, 1, 1, dtype::i8);
  put_ints(b.m, one, {1});
  put_ints(b.m, c, {2147483647});
  execute(gemm_op(2, 0, one, one, c, true), b.m, b.s);
  EXPECT_EQ(ints(b.m, c), std::vector<int64_t>{-2147483648LL});
  // a^T: the view holds 2 x 1 = (3, 4), a^T is 1 x 2; times (5, -6)^T = -9.
  const tensor_view at = packed_view(256, 2, 1, dtype::i8);
  const tensor_view y = packed_view(320, 2, 1, dtype::i8);
  put_ints(b.m, at, {3, 4});
  put_ints(b.m, y, {5, -6});
  auto g = gemm_op(3, 0, at, y, c);
  g.transpose_a = true;
  EXPECT_EQ(check(g), "");
  execute(g, b.m, b.s);
  EXPECT_EQ(ints(b.m, c), std::vector<int64_t>{-9});
  // An i8 output saturates as a store does: 100 x 100 + 100 x 100 -> 127.
  const tensor_view h = packed_view(384, 1, 2, dtype::i8);
  const tensor_view hv = packed_view(448, 2, 1, dtype::i8);
  put_ints(b.m, h, {100, 100});
  put_ints(b.m, hv, {100, 100});
  execute(gemm_op(4, 0, h, hv, packed_view(512, 1, 1, dtype::i8)), b.m, b.s);
  EXPECT_EQ(b.m.read(512, 1), std::vector<uint8_t>{127});
}

TEST(op_compute, gemm_transposes_either_operand) {
  bench b;
  const auto a = b.put(f32(0, 2, 2), {1, 2, 3, 4});
  const auto x = b.put(f32(64, 2, 2), {5, 6, 7, 8});
  auto g = gemm_op(1, 0, a, x, f32(128, 2, 2));
  g.transpose_a = true; // [[1, 3], [2, 4]] * [[5, 6], [7, 8]]
  EXPECT_EQ(b.run(g), (std::vector<float>{26, 30, 38, 44}));
  g.transpose_a = false;
  g.transpose_b = true; // [[1, 2], [3, 4]] * [[5, 7], [6, 8]]
  EXPECT_EQ(b.run(g), (std::vector<float>{17, 23, 39, 53}));
  // a stored 3x2, used as 2x3; b 3x1: out 2x1. [[1, 3, 5], [2, 4, 6]] * [1, 1, 1]
  const auto tall = b.put(f32(256, 3, 2), {1, 2, 3, 4, 5, 6});
  const auto ones = b.put(f32(320, 3, 1), {1, 1, 1});
  auto t = gemm_op(2, 0, tall, ones, f32(384, 2, 1));
  t.transpose_a = true;
  EXPECT_EQ(b.run(t), (std::vector<float>{9, 12}));
  EXPECT_EQ(flops(t), 12u); // 2 * 2 * 1 * 3
  t.transpose_a = false;
  EXPECT_EQ(check(t), "gemm shapes do not chain: a 3x2 * b 3x1 -> out 2x1");
  t.transpose_b = true;
  EXPECT_EQ(check(t), "gemm shapes do not chain: a 3x2 * b^T 3x1 -> out 2x1");
}

TEST(op_compute, gemm_reads_strided_tiles_and_rounds_into_f16) {
  bench b;
  // A 2x4 f32 matrix; the tile is its left 2x2 (stride 16 bytes).
  b.put(f32(0, 2, 4), {1, 2, 100, 100, 3, 4, 100, 100});
  const tensor_view tile{0, 2, 2, 16, dtype::f32};
  const auto id = b.put(packed_view(64, 2, 2, dtype::f16), {1, 0, 0, 1});
  EXPECT_EQ(b.run(gemm_op(1, 0, tile, id, packed_view(128, 2, 2, dtype::f16))),
            (std::vector<float>{1, 2, 3, 4}));
  // 2049 lies halfway between the f16 neighbours 2048 and 2050: to even, 2048.
  const auto k = b.put(f32(256, 1, 1), {2049});
  const auto one = b.put(f32(272, 1, 1), {1});
  EXPECT_EQ(b.run(gemm_op(2, 0, k, one, packed_view(288, 1, 1, dtype::f16))),
            std::vector<float>{2048});
}

TEST(op_compute, memory_ops_copy_bytes_or_convert) {
  bench b;
  const auto src = b.put(f32(0, 1, 2), {1.0f, 3.14159f});
  EXPECT_EQ(b.run(memory_op(1, 0, src, packed_view(64, 1, 2, dtype::bf16))),
            (std::vector<float>{1.0f, 3.140625f}));
  // Same dtype: a byte copy, so an i32 above 2^24 survives (f32 would round it).
  const int32_t big[2] = {16777217, -7};
  b.m.write(128, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(big), 8));
  b.run(memory_op(2, 0, packed_view(128, 2, 1, dtype::i32), tensor_view{256, 2, 1, 16, dtype::i32}));
  int32_t got[2];
  std::memcpy(&got[0], b.m.read(256, 4).data(), 4);
  std::memcpy(&got[1], b.m.read(272, 4).data(), 4);
  EXPECT_EQ(got[0], 16777217);
  EXPECT_EQ(got[1], -7);
}

TEST(op_compute, unary_math) {
  bench b;
  const auto x = b.put(f32(0, 1, 4), {-1, 0, 2, nan});
  const auto y = f32(64, 1, 4);
  expect_same(b.run(math_op(1, 0, math_fn::relu, {x}, y)), {0, 0, 2, nan});
  expect_same(b.run(math_op(2, 0, math_fn::neg, {x}, y)), {1, -0.0f, -2, nan});
  expect_same(b.run(math_op(3, 0, math_fn::abs, {x}, y)), {1, 0, 2, nan});
  expect_same(b.run(math_op(4, 0, math_fn::recip, {x}, y)), {-1, inf, 0.5f, nan});
  expect_same(b.run(math_op(5, 0, math_fn::log, {x}, y)), {nan, -inf, 0.693147182f, nan});
  const auto p = b.put(f32(128, 1, 4), {4, 0.25f, 9, 0});
  expect_same(b.run(math_op(6, 0, math_fn::sqrt, {p}, y)), {2, 0.5f, 3, 0});
  expect_same(b.run(math_op(7, 0, math_fn::rsqrt, {p}, y)), {0.5f, 2, 1.0f / 3.0f, inf});
  auto s = math_op(8, 0, math_fn::scale, {p}, y);
  s.scalar = 2.5;
  expect_same(b.run(s), {10, 0.625f, 22.5f, 0});
  s.fn = math_fn::add_scalar;
  s.scalar = -1;
  expect_same(b.run(s), {3, -0.75f, 8, -1});
  const auto e = b.run(math_op(9, 0, math_fn::exp, {b.put(f32(192, 1, 3), {0, 1, -200})}, f32(256, 1, 3)));
  EXPECT_EQ(e[0], 1.0f);
  EXPECT_NEAR(e[1], 2.71828175f, 3e-7f); // within an ulp of e
  EXPECT_EQ(e[2], 0.0f);                 // underflows
  const auto t = b.run(math_op(10, 0, math_fn::tanh, {b.put(f32(192, 1, 3), {0, 20, -20})}, f32(256, 1, 3)));
  EXPECT_EQ(t, (std::vector<float>{0, 1, -1}));
}

TEST(op_compute, binary_math_broadcasts_rows_columns_and_scalars) {
  bench b;
  const auto a = b.put(f32(0, 2, 3), {1, 2, 3, 4, 5, 6});
  const auto row = b.put(f32(64, 1, 3), {10, 20, 30});
  const auto col = b.put(f32(128, 2, 1), {1, 2});
  const auto one = b.put(f32(192, 1, 1), {2});
  const auto y = f32(256, 2, 3);
  EXPECT_EQ(b.run(math_op(1, 0, math_fn::add, {a, row}, y)),
            (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(b.run(math_op(2, 0, math_fn::sub, {a, col}, y)), (std::vector<float>{0, 1, 2, 2, 3, 4}));
  EXPECT_EQ(b.run(math_op(3, 0, math_fn::mul, {one, a}, y)),
            (std::vector<float>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(b.run(math_op(4, 0, math_fn::div, {row, col}, y)),
            (std::vector<float>{10, 20, 30, 5, 10, 15}));
  const auto p = b.put(f32(320, 1, 4), {1, nan, 3, 0});
  const auto q = b.put(f32(384, 1, 4), {2, 0, nan, -0.5f});
  expect_same(b.run(math_op(5, 0, math_fn::max, {p, q}, f32(448, 1, 4))), {2, nan, nan, 0});
  expect_same(b.run(math_op(6, 0, math_fn::min, {p, q}, f32(448, 1, 4))), {1, nan, nan, -0.5f});
  const auto d = b.put(f32(512, 1, 3), {0, 4, -2});
  EXPECT_EQ(b.run(math_op(7, 0, math_fn::div, {one, d}, f32(576, 1, 3))),
            (std::vector<float>{inf, 0.5f, -1}));
}

TEST(op_compute, where_picks_a_where_cond_is_nonzero) {
  bench b;
  const auto cond = b.put(f32(0, 2, 1), {1, 0});
  const auto seven = b.put(f32(64, 1, 1), {7});
  const auto other = b.put(f32(128, 2, 3), {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(b.run(math_op(1, 0, math_fn::where, {cond, seven, other}, f32(256, 2, 3))),
            (std::vector<float>{7, 7, 7, 4, 5, 6}));
  const auto nan_cond = b.put(f32(320, 1, 1), {nan});
  EXPECT_EQ(b.run(math_op(2, 0, math_fn::where, {nan_cond, seven, other}, f32(256, 2, 3))),
            (std::vector<float>{7, 7, 7, 7, 7, 7}));
}

TEST(op_compute, reductions_along_either_axis) {
  bench b;
  const auto x = b.put(f32(0, 2, 3), {1, 2, 3, 4, 5, 6});
  auto sum = math_op(1, 0, math_fn::sum, {x}, f32(64, 2, 1));
  EXPECT_EQ(b.run(sum), (std::vector<float>{6, 15}));
  sum.axis = 0;
  sum.out = f32(64, 1, 3);
  EXPECT_EQ(b.run(sum), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(b.run(math_op(2, 0, math_fn::row_max, {x}, f32(64, 2, 1))), (std::vector<float>{3, 6}));
  auto mn = math_op(3, 0, math_fn::row_min, {x}, f32(64, 1, 3));
  mn.axis = 0;
  EXPECT_EQ(b.run(mn), (std::vector<float>{1, 2, 3}));
  const auto n = b.put(f32(128, 2, 2), {1, nan, -1, -2});
  expect_same(b.run(math_op(4, 0, math_fn::row_max, {n}, f32(192, 2, 1))), {nan, -1});
}

TEST(op_compute, cast_and_integer_outputs_round_and_saturate) {
  bench b;
  const auto x = b.put(f32(0, 1, 3), {1.5f, -300, 2.5f});
  EXPECT_EQ(b.run(math_op(1, 0, math_fn::cast, {x}, packed_view(64, 1, 3, dtype::i8))),
            (std::vector<float>{2, -128, 2}));
  EXPECT_EQ(b.m.read(64, 3), (std::vector<uint8_t>{2, 0x80, 2}));
  // f32 inputs, an f16 result: 1 + 2^-11 rounds to even, back to 1.
  const auto u = b.put(f32(128, 1, 1), {1});
  const auto v = b.put(f32(144, 1, 1), {0x1p-11f});
  EXPECT_EQ(b.run(math_op(2, 0, math_fn::add, {u, v}, packed_view(160, 1, 1, dtype::f16))),
            std::vector<float>{1});
}

TEST(op_compute, out_may_alias_an_input) {
  bench b;
  const auto x = b.put(f32(0, 2, 2), {1, 2, 3, 4});
  EXPECT_EQ(b.run(math_op(1, 0, math_fn::add, {x, f32(4, 1, 1)}, x)),
            (std::vector<float>{3, 4, 5, 6})); // x + x[0,1]: read before written
}

} // namespace
} // namespace kb
