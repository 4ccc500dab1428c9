// Views of TCM tensors (slice, reshape: no copy, no command; strided views
// in the op log; the block lives while a view does), argmax / argmin and
// cumsum as PE_MATH commands replayed exactly (docs/adr/0026).

#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::floats_at;
using test::ints_at;
using test::iota;
using test::bytes_of;
using test::hbm;
using test::run_kernel_on_pe0;

const op_record* find(const std::vector<op_record>& ops, math_fn fn) {
  for (const auto& op : ops)
    if (op.kind == op_kind::math && op.fn == fn)
      return &op;
  return nullptr;
}

TEST(KernelViews, AColumnSliceIsAStridedViewOfTheSameBlock) {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(0, 32))); // 4x8
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {4, 8});
      const tl::tensor v = tl.slice(x, 1, 2, 2, 3); // rows 1-2, columns 2-4
      EXPECT_EQ(v.address(), x.address() + (8 + 2) * 4);
      EXPECT_TRUE(v.ready());
      EXPECT_EQ(v.at(1, 2), 20.0f);
      tl.store({hbm(4096), dtype::f32}, tl.scale(v, 2.0)); // computed from the view
      tl.store({hbm(8192), dtype::f32}, v);                 // the view itself
      tl.wait_all();
    },
    m);
  ASSERT_EQ(r.run.error, "");
  const op_record* scale = find(r.ops, math_fn::scale);
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->inputs[0].rows, 2u);
  EXPECT_EQ(scale->inputs[0].cols, 3u);
  EXPECT_EQ(scale->inputs[0].row_stride, 32u); // the 4x8 tile's rows
  EXPECT_EQ(floats_at(r.final_image, hbm(4096), 6), (std::vector<float>{20, 22, 24, 36, 38, 40}));
  EXPECT_EQ(floats_at(r.final_image, hbm(8192), 6), (std::vector<float>{10, 11, 12, 18, 19, 20}));
  size_t writes = 0;
  for (const auto& op : r.ops)
    if (op.op_name == "dma_write" && op.out.address == hbm(8192)) {
      ++writes;
      EXPECT_EQ(op.inputs[0].row_stride, 32u); // read from the tile in place
    }
  EXPECT_EQ(writes, 1u);
}

TEST(KernelViews, AReshapeSeesTheSameElementsInRowMajorOrder) {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(1, 16)));
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {2, 8});
      const tl::tensor y = tl.reshape(x, 4, 4);
      EXPECT_EQ(y.at(1, 0), 5.0f);
      tl.store({hbm(4096), dtype::f32}, tl.sum(y, 1));
      tl.wait_all();
    },
    m);
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(floats_at(r.final_image, hbm(4096), 4), (std::vector<float>{10, 26, 42, 58}));
}

TEST(KernelViews, AViewKeepsItsBlockAliveAfterItsTensorIsGone) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    tl::tensor v;
    uint64_t base = 0;
    {
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 16});
      base = x.address();
      v = tl.slice(x, 0, 8, 1, 8);
    }
    const tl::tensor y = tl.load({hbm(64), dtype::f32}, {1, 16});
    EXPECT_NE(y.address(), base); // x's block is still v's
    v = tl::tensor();
    const tl::tensor z = tl.load({hbm(128), dtype::f32}, {1, 16});
    EXPECT_EQ(z.address(), base); // free again
  });
  ASSERT_EQ(r.run.error, "");
}

TEST(KernelViews, ReshapingANonContiguousViewIsRefusedByName) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor x = tl.load({hbm(0), dtype::f32}, {4, 8});
    tl.reshape(tl.slice(x, 0, 0, 4, 4), 2, 8);
  });
  EXPECT_NE(r.run.error.find("kernel k on sip0.cube0.pe0 (program 0): reshape of a non-contiguous 4x4 view "
                             "(rows 32 B apart, 16 B each)"),
            std::string::npos)
    << r.run.error;
}

TEST(KernelViews, ASliceOutsideItsTensorIsRefusedByName) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    tl.slice(tl.load({hbm(0), dtype::f32}, {4, 8}), 3, 0, 2, 8);
  });
  EXPECT_NE(r.run.error.find("kernel k on sip0.cube0.pe0 (program 0): slice of rows [3, +2) and columns "
                             "[0, +8) of a 4x8 tensor"),
            std::string::npos)
    << r.run.error;
}

TEST(KernelViews, ArgmaxArgminAndCumsumAreReplayedExactly) {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(std::vector<float>{3, 9, 9, 1,  //
                                               -1, -5, 2, -5}));
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {2, 4});
      const tl::tensor am = tl.argmax(x);     // per row: 1 (first of the ties), 2
      const tl::tensor an = tl.argmin(x, 0);  // per column: 1, 1, 1, 1
      const tl::tensor cs = tl.cumsum(x, 1);
      EXPECT_FALSE(am.ready()); // compute results: pending until Phase 2
      EXPECT_EQ(am.type(), dtype::i32);
      tl.store({hbm(4096), dtype::i32}, am);
      tl.store({hbm(4160), dtype::i32}, an);
      tl.store({hbm(4224), dtype::f32}, cs);
      tl.wait_all();
    },
    m);
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(ints_at(r.final_image, hbm(4096), 2), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(ints_at(r.final_image, hbm(4160), 4), (std::vector<int32_t>{1, 1, 1, 1}));
  EXPECT_EQ(floats_at(r.final_image, hbm(4224), 8),
            (std::vector<float>{3, 12, 21, 22, -1, -6, -4, -9}));
  // Timed like a reduction on PE_MATH: ceil(8 / 64) x 1 + 4 cycles = 5 ns.
  for (math_fn fn : {math_fn::argmax, math_fn::argmin, math_fn::cumsum}) {
    const op_record* op = find(r.ops, fn);
    ASSERT_NE(op, nullptr) << to_string(fn);
    EXPECT_EQ(op->component, "sip0.cube0.pe0.pe_math");
    EXPECT_EQ(op->t_end_ps - op->t_start_ps, 5000u) << to_string(fn);
  }
  EXPECT_EQ(find(r.ops, math_fn::argmin)->axis, 0);
}

} // namespace
} // namespace kb
