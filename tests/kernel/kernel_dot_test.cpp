// tl.dot that accumulates in place and takes transposed operands (issue 29
// item 2): exact Phase 2 values and the GEMM unit's time, derived by hand on
// the default machine (DESIGN §4: PE_GEMM ceil(tm/32) * ceil(tn/32) * tk +
// 32 + 32 cycles at 1 GHz; PE wires 1 ns).

#include "runtime/report/pe_commands.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::floats_at;
using test::bytes_of;
using test::hbm;
using test::run_kernel_on_pe0;

// a = [[1 2 3] [4 5 6]] (2x3) at hbm 0, a^T (3x2) at hbm 256,
// b = [[1 0] [0 1] [1 1]] (3x2) at hbm 512, b^T (2x3) at hbm 768,
// acc0 = [[10 20] [30 40]] at hbm 1024. a x b = [[4 5] [10 11]].
std::shared_ptr<memory_image> operands() {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6}));
  m->write(hbm(256), bytes_of(std::vector<float>{1, 4, 2, 5, 3, 6}));
  m->write(hbm(512), bytes_of(std::vector<float>{1, 0, 0, 1, 1, 1}));
  m->write(hbm(768), bytes_of(std::vector<float>{1, 0, 1, 0, 1, 1}));
  m->write(hbm(1024), bytes_of(std::vector<float>{10, 20, 30, 40}));
  return m;
}

// Five loads (blocking), then at T: acc = dot(a, b, acc) (cmd 6),
// acc = dot(a^T, b^T, acc, trans) (cmd 7), store acc (cmd 8), and a new
// c = dot(a^T, b) (cmd 9), store c (cmd 10). Each dot is ceil(2/32) *
// ceil(2/32) * 3 + 64 = 67 cycles. Cmd 6: at PE_SCHEDULER T + 1, PE_GEMM
// T + 2 .. T + 69, tile-done T + 70, done T + 71. Cmd 7 rewrites what cmd 6
// writes: it waits for it (held: depends on 6). Cmd 9 depends on nothing in
// flight: it overtakes cmd 7 into the GEMM queue at T + 1 and PE_GEMM takes
// it when cmd 6 leaves, T + 69 .. T + 136 (tile-done T + 137, done
// T + 138). Cmd 7 goes to the queue at T + 70 and runs T + 136 .. T + 203:
// tile-done T + 204, done T + 205; the store of acc starts at T + 204.
// acc = acc0 + 2 (a x b) = [[18 30] [50 62]].
TEST(KernelDot, AccumulatesInPlaceAndTakesTransposedOperands) {
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(0), dtype::f32}, {2, 3});
      const tl::tensor at = tl.load({hbm(256), dtype::f32}, {3, 2});
      const tl::tensor b = tl.load({hbm(512), dtype::f32}, {3, 2});
      const tl::tensor bt = tl.load({hbm(768), dtype::f32}, {2, 3});
      tl::tensor acc = tl.load({hbm(1024), dtype::f32}, {2, 2});
      EXPECT_TRUE(acc.ready());
      acc = tl.dot(a, b, acc);
      EXPECT_FALSE(acc.ready()); // a compute result from now on
      acc = tl.dot(at, bt, acc, {.trans_a = true, .trans_b = true});
      tl.store({hbm(2048), dtype::f32}, acc);
      // The same product into a new tensor, from the transposed a only.
      tl.store({hbm(3072), dtype::f32}, tl.dot(at, b, {.trans_a = true}));
    },
    operands());
  ASSERT_EQ(r.run.error, "");
  ASSERT_TRUE(r.replayed);
  EXPECT_EQ(floats_at(r.final_image, hbm(2048), 4), (std::vector<float>{18, 30, 50, 62}));
  EXPECT_EQ(floats_at(r.final_image, hbm(3072), 4), (std::vector<float>{4, 5, 10, 11}));

  const auto pes = commands_of(r.run.result, {"sip0.cube0.pe0"});
  const auto& rows = pes[0].rows;
  ASSERT_EQ(rows.size(), 10u);
  const uint64_t T = rows[5].issue_ps;
  EXPECT_EQ(rows[4].done_ps, T); // issued when the last load resumed the kernel
  EXPECT_EQ(rows[5].start_ps, T + 1000);
  EXPECT_EQ(rows[5].done_ps, T + 71000);
  EXPECT_EQ(rows[8].issue_ps, T);
  EXPECT_EQ(rows[8].start_ps, T + 1000);
  EXPECT_EQ(rows[8].done_ps, T + 138000);
  EXPECT_EQ(rows[6].issue_ps, T);
  EXPECT_EQ(rows[6].start_ps, T + 70000);
  EXPECT_EQ(static_cast<held_why>(rows[6].held), held_why::depends);
  EXPECT_EQ(rows[6].held_by, 6u);
  EXPECT_EQ(rows[6].done_ps, T + 205000);
  EXPECT_EQ(rows[7].start_ps, T + 204000);
  EXPECT_EQ(rows[5].what, "dot 2x3x2 f32 (into acc)");
  EXPECT_EQ(rows[6].what, "dot 2x3x2 f32 (a^T, b^T, into acc)");
  EXPECT_EQ(rows[8].what, "dot 2x3x2 f32 (a^T)");
  EXPECT_EQ(rows[6].flops, 2u * 2 * 3 * 2);

  // The op log: both dots accumulate; the second reads both operands transposed.
  // (op_key order: cmd 6, cmd 9, cmd 7, as PE_GEMM ran them).
  std::vector<const op_record*> dots;
  for (const auto& op : r.ops)
    if (op.kind == op_kind::gemm)
      dots.push_back(&op);
  ASSERT_EQ(dots.size(), 3u);
  EXPECT_TRUE(dots[0]->accumulate);
  EXPECT_FALSE(dots[0]->transpose_a);
  EXPECT_FALSE(dots[1]->accumulate);
  EXPECT_TRUE(dots[1]->transpose_a);
  EXPECT_FALSE(dots[1]->transpose_b);
  EXPECT_TRUE(dots[2]->accumulate);
  EXPECT_TRUE(dots[2]->transpose_a);
  EXPECT_TRUE(dots[2]->transpose_b);
  EXPECT_EQ(dots[0]->out.address, dots[2]->out.address); // in place
}

// An i8 x i8 product accumulates exactly into an i32 accumulator.
TEST(KernelDot, IntegerOperandsAccumulateInI32) {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), std::vector<uint8_t>{127, 127}); // 1x2 i8
  m->write(hbm(64), std::vector<uint8_t>{127, 127}); // 2x1 i8
  m->write(hbm(128), bytes_of(std::vector<int32_t>{1 << 24}));
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(0), dtype::i8}, {1, 2});
      const tl::tensor b = tl.load({hbm(64), dtype::i8}, {2, 1});
      tl::tensor acc = tl.load({hbm(128), dtype::i32}, {1, 1});
      acc = tl.dot(a, b, acc);
      tl.store({hbm(192), dtype::i32}, tl.dot(a, b, acc));
    },
    m);
  ASSERT_EQ(r.run.error, "");
  ASSERT_TRUE(r.replayed);
  // 2^24 + 2 * 2 * 127^2 = 16,841,732: not a float, exact in i32.
  EXPECT_EQ(r.final_image.read(hbm(192), 4),
            bytes_of(std::vector<int32_t>{(1 << 24) + 4 * 127 * 127}));
}

// Misuse, each naming the kernel: a wrong accumulator shape or dtype,
// transposed operands whose inner dimensions then differ.
TEST(KernelDot, MisuseIsAKernelError) {
  auto fails = [](std::function<void(tl::context&)> body, const std::string& want) {
    const auto r = run_kernel_on_pe0(std::move(body));
    EXPECT_NE(r.run.error.find(want), std::string::npos) << r.run.error;
    EXPECT_NE(r.run.error.find("kernel k on sip0.cube0.pe0"), std::string::npos) << r.run.error;
  };
  fails(
    [](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(0), dtype::f32}, {2, 3});
      const tl::tensor b = tl.load({hbm(512), dtype::f32}, {3, 2});
      const tl::tensor acc = tl.load({hbm(1024), dtype::f32}, {2, 3});
      tl.dot(a, b, acc);
    },
    "dot into a 2x3 accumulator: the product is 2x2");
  fails(
    [](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(0), dtype::f16}, {2, 4});
      const tl::tensor b = tl.load({hbm(512), dtype::f16}, {4, 2});
      const tl::tensor acc = tl.load({hbm(1024), dtype::f16}, {2, 2});
      tl.dot(a, b, acc);
    },
    "dot of f16 into a f16 accumulator: it must be f32");
  fails(
    [](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(0), dtype::f32}, {2, 3});
      const tl::tensor b = tl.load({hbm(512), dtype::f32}, {3, 2});
      tl.dot(a, b, {.trans_a = true});
    },
    "dot of 2x3 (transposed) and 3x2: the inner dimensions differ (2 and 3)");
}

} // namespace
} // namespace kb
