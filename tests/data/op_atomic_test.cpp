// Atomics in Phase 2 (docs/adr/0027): the arithmetic both passes share, and
// the replay of atomics of many PEs on the same bytes in log order, whatever
// the worker count.

#include "runtime/data/executor.hpp"
#include "runtime/data/op_atomic.hpp"
#include "tests/data/op_builders.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kb {
namespace {

template <class T>
std::vector<uint8_t> raw(std::vector<T> v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
std::vector<T> values(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

TEST(OpAtomic, F32AddRoundsOnceAndMaxPropagatesNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto dst = raw<float>({1e8f, 1.5f, nan, 2.0f});
  apply_atomic(math_fn::atomic_add, dtype::f32, dst, raw<float>({1.0f, 2.25f, 1.0f, -2.0f}));
  const auto a = values<float>(dst);
  EXPECT_EQ(a[0], 1e8f + 1.0f); // 1e8 + 1 rounds to 1e8 in f32
  EXPECT_EQ(a[1], 3.75f);
  EXPECT_TRUE(std::isnan(a[2]));
  EXPECT_EQ(a[3], 0.0f);
  auto m = raw<float>({1.0f, nan, 3.0f, -0.5f});
  apply_atomic(math_fn::atomic_max, dtype::f32, m, raw<float>({2.0f, 1.0f, nan, -1.0f}));
  const auto b = values<float>(m);
  EXPECT_EQ(b[0], 2.0f);
  EXPECT_TRUE(std::isnan(b[1]));
  EXPECT_TRUE(std::isnan(b[2]));
  EXPECT_EQ(b[3], -0.5f);
}

TEST(OpAtomic, I32AddWrapsAndMaxIsSigned) {
  auto dst = raw<int32_t>({2147483647, -5, 16777217});
  apply_atomic(math_fn::atomic_add, dtype::i32, dst, raw<int32_t>({1, 3, 1}));
  EXPECT_EQ(values<int32_t>(dst), (std::vector<int32_t>{-2147483647 - 1, -2, 16777218}));
  auto m = raw<int32_t>({-1, 5});
  apply_atomic(math_fn::atomic_max, dtype::i32, m, raw<int32_t>({-7, 6}));
  EXPECT_EQ(values<int32_t>(m), (std::vector<int32_t>{-1, 6}));
  EXPECT_THROW(apply_atomic(math_fn::atomic_add, dtype::f16, m, m), std::logic_error);
}

TEST(OpAtomic, CheckWantsOutAsItsFirstInputAndAnF32OrI32Operand) {
  const tensor_view out = packed_view(0x1000, 1, 4, dtype::f32);
  const tensor_view in = packed_view(0x2000, 1, 4, dtype::f32);
  EXPECT_EQ(check(test::math_op(1, 0, math_fn::atomic_add, {out, in}, out)), "");
  EXPECT_EQ(check(test::math_op(1, 0, math_fn::atomic_add, {in, in}, out)),
            "atomic_add: input 0 must be out itself (the bytes it updates)");
  const tensor_view h = packed_view(0x1000, 1, 4, dtype::f16);
  EXPECT_EQ(check(test::math_op(1, 0, math_fn::atomic_max, {h, packed_view(0x2000, 1, 4, dtype::f16)}, h)),
            "atomic_max works on f32 or i32 elements, not f16");
  EXPECT_EQ(flops(test::math_op(1, 0, math_fn::atomic_add, {out, in}, out)), 4u);
}

// 64 atomics of 16 "PEs" on one 1x4 f32 row, with values whose f32 sum
// depends on the order (1e8, then small ones, then -1e8): every worker count
// gives the sequential result of the log order.
TEST(OpAtomic, AtomicsOnTheSameBytesReplayInLogOrderWhateverTheWorkers) {
  const tensor_view out = packed_view(0x100000, 1, 4, dtype::f32);
  std::vector<op_record> ops;
  memory_image init;
  init.write(out.address, raw<float>({0, 0, 0, 0}));
  std::vector<uint8_t> expect = raw<float>({0, 0, 0, 0});
  for (uint32_t i = 0; i < 64; ++i) {
    const float v = i % 16 == 0 ? (i % 32 == 0 ? 1e8f : -1e8f) : 0.75f + static_cast<float>(i);
    const tensor_view operand = packed_view(0x200000 + 64 * i, 1, 4, dtype::f32);
    const auto bytes = raw<float>({v, -v, 2 * v, v / 3});
    init.write(operand.address, bytes);
    apply_atomic(i % 5 == 4 ? math_fn::atomic_max : math_fn::atomic_add, dtype::f32, expect,
                 bytes);
    op_record r = test::math_op(1000 + i, 100 * i + 7, i % 5 == 4 ? math_fn::atomic_max
                                                                  : math_fn::atomic_add,
                                {out, operand}, out);
    r.component = "pe" + std::to_string(i % 16) + ".pe_dma";
    ops.push_back(std::move(r));
  }
  std::reverse(ops.begin(), ops.end()); // the order is t_start's, not the vector's
  for (unsigned workers : {1u, 4u}) {
    memory_image m = init;
    replay_options o;
    o.workers = workers;
    replay(ops, m, o);
    std::vector<uint8_t> got(16);
    m.read(out.address, got);
    EXPECT_EQ(got, expect) << workers << " workers";
  }
}

} // namespace
} // namespace kb
