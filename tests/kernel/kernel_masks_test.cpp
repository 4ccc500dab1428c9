// Index and mask tensors and masked loads and stores (docs/adr/0026): the
// grouping of live runs into DMA commands, Phase-1-eager index tensors whose
// Phase 2 replay holds the same bytes, the bytes and time of a masked load
// derived by hand (kernel_timing_test.cpp derives the 64 B load: 120.25 ns
// from issue to done), exact Phase 2 values, a wrong mask caught by
// verification, and misuse named.

#include "runtime/data/verify.hpp"
#include "runtime/kernel/mask_runs.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::floats_at;
using test::iota;
using test::bytes_of;
using test::figure;
using test::hbm;
using test::launch_ps;
using test::run_kernel_on_pe0;

const std::string cpu = "sip0.cube0.pe0.pe_cpu";

// -- grouping -------------------------------------------------------------------------

TEST(MaskRuns, ARaggedEdgeIsOneGroup) {
  // 3x4, the first 2 rows and 3 columns live.
  const std::vector<uint8_t> live{1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0};
  EXPECT_EQ(mask_runs(live, 3, 4), (std::vector<mask_run>{{0, 2, 0, 3}}));
  EXPECT_EQ(mask_runs(live, 3, 4, 0),
            (std::vector<mask_run>{{0, 2, 3, 1}, {2, 1, 0, 4}}));
}

TEST(MaskRuns, RowsWithDifferentRunsAreGroupsOfTheirOwn) {
  const std::vector<uint8_t> live{1, 0, 1, 1,  //
                                  1, 0, 1, 1,  //
                                  0, 1, 1, 0,  //
                                  1, 0, 1, 1};
  EXPECT_EQ(mask_runs(live, 4, 4), (std::vector<mask_run>{
                                     {0, 2, 0, 1}, {0, 2, 2, 2}, {2, 1, 1, 2}, {3, 1, 0, 1},
                                     {3, 1, 2, 2}}));
  EXPECT_TRUE(mask_runs(std::vector<uint8_t>(4, 0), 2, 2).empty());
}

// -- eager index tensors -------------------------------------------------------------

TEST(KernelMasks, IndexTensorsHaveTheirDataInPhase1AndThePhase2ReplayAgrees) {
  std::vector<uint8_t> phase1; // arange, its mask, full f16: as Phase 1 saw them
  const auto r = run_kernel_on_pe0([&](tl::context& tl) {
    const tl::tensor a = tl.arange(8, 3);       // 3..10 (i32)
    const tl::tensor c = tl.arange(2, 0, 0);    // a 2x1 column 0, 1
    const tl::tensor m = tl.logical_and(tl.lt(a, 6.0), tl.ge(c, 1.0)); // 2x8 i8
    const tl::tensor f = tl.full(1, 4, 0.1, dtype::f16);
    EXPECT_TRUE(a.ready() && m.ready() && f.ready());
    EXPECT_EQ(a.at(0, 7), 10.0f);
    EXPECT_EQ(m.at(0, 0), 0.0f);
    EXPECT_EQ(m.at(1, 2), 1.0f);
    EXPECT_EQ(m.at(1, 3), 0.0f);
    for (const tl::tensor* t : {&a, &m, &f})
      phase1.insert(phase1.end(), t->bytes().begin(), t->bytes().end());
    tl.store({hbm(0), dtype::i32}, a);
    tl.store({hbm(64), dtype::i8}, m);
    tl.store({hbm(128), dtype::f16}, f);
    tl.wait_all();
  });
  ASSERT_EQ(r.run.error, "");
  ASSERT_TRUE(r.replayed);
  // The replay recomputed them from the op log and stored them: the same bytes.
  std::vector<uint8_t> phase2 = r.final_image.read(hbm(0), 32);
  for (const auto& [at, n] : {std::pair<uint64_t, size_t>{64, 16}, {128, 8}}) {
    const auto b = r.final_image.read(hbm(at), n);
    phase2.insert(phase2.end(), b.begin(), b.end());
  }
  EXPECT_EQ(phase2, phase1);
  EXPECT_EQ(phase1.size(), 56u);
  // The op log: arange 1x8 from 3 along axis 1, on PE_MATH, into TCM as i32.
  ASSERT_GE(r.ops.size(), 1u);
  const op_record* arange = nullptr;
  for (const auto& op : r.ops)
    if (op.fn == math_fn::arange && op.kind == op_kind::math && op.out.cols == 8)
      arange = &op;
  ASSERT_NE(arange, nullptr);
  EXPECT_EQ(arange->op_name, "arange");
  EXPECT_EQ(arange->component, "sip0.cube0.pe0.pe_math");
  EXPECT_TRUE(arange->inputs.empty());
  EXPECT_EQ(arange->scalar, 3.0);
  EXPECT_EQ(arange->axis, 1);
  EXPECT_EQ(arange->out.type, dtype::i32);
  EXPECT_EQ(arange->out.rows, 1u);
  // PE_MATH: ceil(8 / 64 lanes) x 1 cycle + 4 pipeline cycles at 1 GHz.
  EXPECT_EQ(arange->t_end_ps - arange->t_start_ps, 5000u);
}

TEST(KernelMasks, WhereTakesAMaskAsItsCondition) {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(1, 8)));
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 8});
      const tl::tensor keep = tl.logical_not(tl.ge(tl.arange(8), 3.0)); // columns 0..2
      tl.store({hbm(4096), dtype::f32}, tl.where(keep, x, tl.full(1, 1, -2.0)));
      tl.wait_all();
    },
    m);
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(floats_at(r.final_image, hbm(4096), 8),
            (std::vector<float>{1, 2, 3, -2, -2, -2, -2, -2}));
}

// -- masked loads ----------------------------------------------------------------------

TEST(KernelMasks, AMaskedLoadMovesOnlyTheLiveRowAndTakesThe64ByteLoadsTime) {
  // A 2x16 f32 block (128 B), row 1 masked off by a loaded 2x1 i8 mask: the
  // DMA moves row 0 only, 64 B, timed exactly as the 64 B load of
  // kernel_timing_test: issue t, done t + 120.25 ns. A MATH full writes
  // `other` into row 1 beside it (issued after the DMA: ceil(16/64) + 4 =
  // 5 cycles, done long before). The kernel resumes when both are done.
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(1, 32)));
  m->write(hbm(8192), std::vector<uint8_t>{1, 0});
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor mask = tl.load({hbm(8192), dtype::i8}, {2, 1});
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {2, 16}, mask, -1.0);
      for (uint32_t c = 0; c < 16; c += 15)
        for (uint32_t row = 0; row < 2; ++row)
          seen.push_back(x.at(row, c));
      tl.wait(tl.store({hbm(4096), dtype::f32}, x));
    },
    m);
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, (std::vector<float>{1, -1, 16, -1}));
  const uint64_t t = figure(r.run, cpu, "cmd1.done_ps");
  EXPECT_EQ(figure(r.run, cpu, "cmd2.issue_ps"), t);
  EXPECT_EQ(figure(r.run, cpu, "cmd2.done_ps"), t + 120250u);
  EXPECT_EQ(figure(r.run, cpu, "cmd3.done"), 1u);      // the fill
  EXPECT_EQ(figure(r.run, cpu, "cmd4.issue_ps"), t + 120250u); // the store, on resuming
  // HBM read the 2 B mask and the 64 live bytes, not the 128 B block.
  EXPECT_EQ(figure(r.run, "sip0.cube0.hbm", "read_bytes"), 2u + 64u);
  // The op log: the DMA read names the live row only; the fill the dead one.
  ASSERT_EQ(r.ops.size(), 4u); // mask load, masked load, fill, store
  const op_record* read = nullptr;
  for (const auto& op : r.ops)
    if (op.op_name == "dma_read" && op.inputs[0].address == hbm(0))
      read = &op;
  ASSERT_NE(read, nullptr);
  const op_record& dma = *read;
  EXPECT_EQ(dma.inputs[0], (tensor_view{hbm(0), 1, 16, 64, dtype::f32}));
  EXPECT_EQ(dma.out.rows, 1u);
  EXPECT_EQ(dma.t_end_ps - dma.t_start_ps, 116250u); // take to tail, as the plain load
  const op_record* fill = nullptr;
  for (const auto& op : r.ops)
    if (op.fn == math_fn::full && op.kind == op_kind::math)
      fill = &op;
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(fill->scalar, -1.0);
  EXPECT_EQ(fill->out, (tensor_view{dma.out.address + 64, 1, 16, 64, dtype::f32}));
  EXPECT_EQ(fill->t_end_ps - fill->t_start_ps, 5000u);
  // Phase 2: row 0 as loaded, row 1 `other`.
  std::vector<float> want = iota(1, 16);
  want.insert(want.end(), 16, -1.0f);
  EXPECT_EQ(floats_at(r.final_image, hbm(4096), 32), want);
}

TEST(KernelMasks, ARaggedCornerIsOneStridedDmaAndTwoFills) {
  // A 3x8 block of a 3x16 matrix; live: rows < 2 and columns < 5, built
  // from arange and comparisons. One DMA of 2 rows of 20 B, 64 B apart.
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(0, 48)));
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor live = tl.logical_and(tl.lt(tl.arange(8), 5.0), tl.lt(tl.arange(3, 0, 0), 2.0));
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {3, 8, 16}, live, 0.5);
      EXPECT_EQ(x.at(1, 4), 20.0f);
      EXPECT_EQ(x.at(1, 5), 0.5f);
      EXPECT_EQ(x.at(2, 0), 0.5f);
      tl.store({hbm(4096), dtype::f32}, x);
      tl.wait_all();
    },
    m);
  ASSERT_EQ(r.run.error, "");
  std::vector<const op_record*> reads, fills;
  for (const auto& op : r.ops) {
    if (op.op_name == "dma_read")
      reads.push_back(&op);
    if (op.fn == math_fn::full && op.kind == op_kind::math && op.scalar == 0.5)
      fills.push_back(&op);
  }
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0]->inputs[0], (tensor_view{hbm(0), 2, 5, 64, dtype::f32}));
  EXPECT_EQ(reads[0]->out.row_stride, 32u); // into the 3x8 tile
  ASSERT_EQ(fills.size(), 2u);
  EXPECT_EQ(fills[0]->out.rows, 2u);
  EXPECT_EQ(fills[0]->out.cols, 3u);
  EXPECT_EQ(fills[1]->out.rows, 1u);
  EXPECT_EQ(fills[1]->out.cols, 8u);
  const std::vector<float> want{0,  1,  2,  3,  4,  .5f, .5f, .5f, //
                                16, 17, 18, 19, 20, .5f, .5f, .5f, //
                                .5f, .5f, .5f, .5f, .5f, .5f, .5f, .5f};
  EXPECT_EQ(floats_at(r.final_image, hbm(4096), 24), want);
}

TEST(KernelMasks, ALoadWithNothingLiveIssuesNoDmaOnlyTheFill) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor none = tl.zeros(1, 4, dtype::i8);
    const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 4}, none, 7.0);
    EXPECT_EQ(x.at(0, 3), 7.0f);
  });
  ASSERT_EQ(r.run.error, "");
  for (const auto& op : r.ops)
    EXPECT_NE(op.op_name, "dma_read");
}

// -- masked stores -----------------------------------------------------------------------

TEST(KernelMasks, AMaskedStoreWritesOnlyTheLiveColumns) {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(1, 16)));
  m->write(hbm(4096), bytes_of(std::vector<float>(16, -9)));
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {2, 8});
      tl.wait(tl.store({hbm(4096), dtype::f32}, x, tl.lt(tl.arange(8), 5.0)));
    },
    m);
  ASSERT_EQ(r.run.error, "");
  const op_record* write = nullptr;
  for (const auto& op : r.ops)
    if (op.op_name == "dma_write")
      write = &op;
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->out, (tensor_view{hbm(4096), 2, 5, 32, dtype::f32}));
  EXPECT_EQ(floats_at(r.final_image, hbm(4096), 16),
            (std::vector<float>{1, 2, 3, 4, 5, -9, -9, -9, 9, 10, 11, 12, 13, -9, -9, -9}));
}

TEST(KernelMasks, AMaskOneRowTooManyFailsVerificationNamingTheElement) {
  // z is 4x16 with 3 valid rows: a masked store of rows < 3 leaves row 3 as
  // it was (0); the wrong mask, rows < 4, overwrites it.
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(1, 64)));
  auto run = [&](double rows) {
    return run_kernel_on_pe0(
      [rows](tl::context& tl) {
        const tl::tensor x = tl.load({hbm(0), dtype::f32}, {4, 16});
        tl.store({hbm(4096), dtype::f32}, x, tl.lt(tl.arange(4, 0, 0), rows));
        tl.wait_all();
      },
      m);
  };
  std::vector<double> want(64, 0);
  for (size_t i = 0; i < 48; ++i)
    want[i] = 1.0 + static_cast<double>(i);
  const tensor_view z{hbm(4096), 4, 16, 64, dtype::f32};
  const auto good = run(3);
  ASSERT_EQ(good.run.error, "");
  EXPECT_TRUE(verify(good.final_image, z, want, "z").ok);
  const auto bad = run(4);
  ASSERT_EQ(bad.run.error, "");
  const verify_result v = verify(bad.final_image, z, want, "z");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first.row, 3u);
  EXPECT_EQ(v.first.col, 0u);
  EXPECT_NE(v.describe().find("z[3,0] = 49, expected 0"), std::string::npos) << v.describe();
}

// -- misuse ------------------------------------------------------------------------------

TEST(KernelMasks, APendingMaskIsRefusedByName) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 4});
    tl.load({hbm(64), dtype::f32}, {1, 4}, tl.gt(tl.exp(x), 1.0));
  });
  EXPECT_NE(r.run.error.find("kernel k on sip0.cube0.pe0 (program 0): masked load of 1x4 f32: its mask is a "
                             "compute result, pending until Phase 2"),
            std::string::npos)
    << r.run.error;
}

TEST(KernelMasks, AMaskThatDoesNotBroadcastIsRefusedByName) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor x = tl.load({hbm(0), dtype::f32}, {2, 4});
    tl.store({hbm(64), dtype::f32}, x, tl.lt(tl.arange(3, 0, 0), 2.0));
  });
  EXPECT_NE(r.run.error.find("kernel k on sip0.cube0.pe0 (program 0): masked store of 2x4 f32: a 3x1 mask "
                             "does not broadcast to the 2x4 block"),
            std::string::npos)
    << r.run.error;
}

TEST(KernelMasks, ComparingShapesThatDoNotBroadcastIsRefusedByName) {
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) { tl.lt(tl.arange(3), tl.arange(4)); });
  EXPECT_NE(r.run.error.find("kernel k on sip0.cube0.pe0 (program 0): lt: a 1x3 operand does not broadcast "
                             "to 1x4"),
            std::string::npos)
    << r.run.error;
}

} // namespace
} // namespace kb
