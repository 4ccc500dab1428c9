// Kernels with real data in Phase 1 (seed ADR-0020 D3): a load returns the
// deployed bytes, the kernel branches on them, its stores reach the memory
// (another PE's kernel sees them) and the op log replays to the memory
// contents the kernel's choices imply.

#include "runtime/pipeline/op_sink.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kb {
namespace {

using test::iota;
using test::launch_ps;
using test::bytes_of;
using test::hbm;
using test::run_kernel_on_pe0;
using test::run_kernels;
using test::tcm;

/// AllocatableTCM starts after the 512 KiB SchedulerReservedTCM (default pe_tcm).
constexpr uint64_t tcm0 = 2560 * 1024;

/// Row 0 at hbm 0 starts positive (1..16), row 1 at hbm 64 negative (-1..14).
std::shared_ptr<memory_image> two_rows() {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(1, 16)));
  m->write(hbm(64), bytes_of(iota(-1, 16)));
  return m;
}

/// Stores a row's copy only if its first element is positive.
void copy_positive_rows(tl::context& tl) {
  const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 16});
  if (x.at(0, 0) > 0)
    tl.store({hbm(4096), dtype::f32}, x);
  const tl::tensor y = tl.load({hbm(64), dtype::f32}, {1, 16});
  if (y.at(0, 0) > 0)
    tl.store({hbm(8192), dtype::f32}, y);
  tl.wait_all();
}

TEST(KernelData, ALoadReturnsTheDeployedValues) {
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor x = tl.load({hbm(0), dtype::f32}, {2, 16});
      for (uint32_t row = 0; row < 2; ++row)
        for (uint32_t c = 0; c < 16; ++c)
          seen.push_back(x.at(row, c));
    },
    two_rows());
  ASSERT_EQ(r.run.error, "");
  std::vector<float> want = iota(1, 16);
  const auto second = iota(-1, 16);
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_EQ(seen, want);
}

TEST(KernelData, AStridedLoadPacksTheRowsItSkipsOver) {
  // A 3x2 block of a 3x16 f32 matrix at column 5: elements 5, 6, 21, 22, 37, 38.
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(0, 48)));
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor x = tl.load(tl::ptr{hbm(0), dtype::f32} + 5, {3, 2, 16});
      EXPECT_EQ(x.bytes().size(), 24u);
      for (uint32_t row = 0; row < 3; ++row)
        for (uint32_t c = 0; c < 2; ++c)
          seen.push_back(x.at(row, c));
    },
    m);
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, (std::vector<float>{5, 6, 21, 22, 37, 38}));
}

TEST(KernelData, EveryDtypeLoadsAsItsValue) {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), std::vector<uint8_t>{0x00, 0x3C, 0x00, 0xC0});             // f16 1, -2
  m->write(hbm(64), std::vector<uint8_t>{0xC0, 0x3F, 0xF7, 0xC2});            // bf16 1.5, -123.5
  m->write(hbm(128), std::vector<uint8_t>{0xFF, 0x7F});                       // i8 -1, 127
  m->write(hbm(192), std::vector<uint8_t>{0xF9, 0xFF, 0xFF, 0xFF, 9, 0, 0, 0}); // i32 -7, 9
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const dtype types[] = {dtype::f16, dtype::bf16, dtype::i8, dtype::i32};
      for (int i = 0; i < 4; ++i) {
        const tl::tensor x = tl.load({hbm(64 * i), types[i]}, {1, 2});
        seen.push_back(x.at(0, 0));
        seen.push_back(x.at(0, 1));
      }
    },
    m);
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, (std::vector<float>{1, -2, 1.5f, -123.5f, -1, 127, -7, 9}));
}

TEST(KernelData, AKernelBranchesOnLoadedValuesAndTheReplayFollows) {
  const auto deploy = two_rows();
  const auto r = run_kernel_on_pe0(copy_positive_rows, deploy);
  ASSERT_EQ(r.run.error, "");
  ASSERT_TRUE(r.replayed);
  // Row 0 was copied; row 1 (negative) was not: its target stays zero.
  EXPECT_EQ(r.final_image.read(hbm(4096), 64), bytes_of(iota(1, 16)));
  EXPECT_EQ(r.final_image.read(hbm(8192), 64), std::vector<uint8_t>(64, 0));
  EXPECT_EQ(test::figure(r.run, "sip0.cube0.pe0.pe_cpu", "kernel.finished"), 1u);
}

TEST(KernelData, TheOpLogHoldsTwoLoadsAndOneStoreWithTheirTcmEnds) {
  const auto r = run_kernel_on_pe0(copy_positive_rows, two_rows());
  ASSERT_EQ(r.run.error, "");
  ASSERT_EQ(r.ops.size(), 3u);
  auto named = [&](const std::string& name) {
    std::vector<op_record> v;
    for (const auto& op : r.ops)
      if (op.op_name == name)
        v.push_back(op);
    return v;
  };
  const auto reads = named("dma_read"), writes = named("dma_write");
  ASSERT_EQ(reads.size(), 2u);
  ASSERT_EQ(writes.size(), 1u);
  // x: the first 64 B block of AllocatableTCM; y: the next one (x is alive).
  EXPECT_EQ(reads[0].inputs, std::vector<tensor_view>{packed_view(hbm(0), 1, 16, dtype::f32)});
  EXPECT_EQ(reads[0].out, packed_view(tcm(0, tcm0), 1, 16, dtype::f32));
  EXPECT_EQ(reads[1].inputs, std::vector<tensor_view>{packed_view(hbm(64), 1, 16, dtype::f32)});
  EXPECT_EQ(reads[1].out, packed_view(tcm(0, tcm0 + 64), 1, 16, dtype::f32));
  EXPECT_EQ(writes[0].inputs, std::vector<tensor_view>{packed_view(tcm(0, tcm0), 1, 16, dtype::f32)});
  EXPECT_EQ(writes[0].out, packed_view(hbm(4096), 1, 16, dtype::f32));
  for (const auto& op : r.ops) {
    EXPECT_EQ(op.kind, op_kind::memory);
    EXPECT_EQ(op.component, "sip0.cube0.pe0.pe_dma");
  }
  // The first load is served from the take at 2 ns to its tail at 118.25 ns
  // (kernel_timing_test derives it).
  EXPECT_EQ(reads[0].t_start_ps, launch_ps + 2000u);
  EXPECT_EQ(reads[0].t_end_ps, launch_ps + 118250u);
  EXPECT_TRUE(std::is_sorted(r.ops.begin(), r.ops.end(), [](const auto& a, const auto& b) {
    return op_key(a) < op_key(b);
  }));
}

TEST(KernelData, AStoreReachesTheMemoryAndAnotherPesKernelReadsIt) {
  // pe1 copies row 0 to hbm 4096, waits, then raises a flag at hbm 8192;
  // pe0 polls the flag and then reads the copy. The flag is the first
  // element of row 0 (1.0), stored once the copy is done.
  std::vector<float> got;
  int polls = 0;
  const auto r = run_kernels(
    {{"sip0.cube0.pe1",
      [](tl::context& tl) {
        const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 16});
        tl.wait(tl.store({hbm(4096), dtype::f32}, x));
        const tl::tensor flag = tl.load({hbm(0), dtype::f32}, {1, 1});
        tl.wait(tl.store({hbm(8192), dtype::f32}, flag));
      }},
     {"sip0.cube0.pe0",
      [&](tl::context& tl) {
        for (;;) {
          ++polls;
          if (tl.load({hbm(8192), dtype::f32}, {1, 1}).at(0, 0) != 0)
            break;
        }
        const tl::tensor copy = tl.load({hbm(4096), dtype::f32}, {1, 16});
        for (uint32_t c = 0; c < 16; ++c)
          got.push_back(copy.at(0, c));
      }}},
    two_rows());
  ASSERT_EQ(r.run.error, "");
  EXPECT_GT(polls, 1);
  EXPECT_EQ(got, iota(1, 16));
  EXPECT_EQ(test::figure(r.run, "sip0.cube0.pe0.pe_cpu", "kernel.finished"), 1u);
  EXPECT_EQ(test::figure(r.run, "sip0.cube0.pe1.pe_cpu", "kernel.finished"), 1u);
}

TEST(KernelData, TcmPeakCountsTheTensorsAliveAtOnce) {
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      { const tl::tensor a = tl.load({hbm(0), dtype::f32}, {1, 16}); } // 64 B, freed
      const tl::tensor b = tl.load({hbm(0), dtype::f32}, {1, 20});     // 80 -> 128 B
      const tl::tensor c = tl.load({hbm(0), dtype::f32}, {1, 1});      // 4 -> 64 B
    },
    two_rows());
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(test::figure(r.run, "sip0.cube0.pe0.pe_cpu", "kernel.tcm_peak_bytes"), 192u);
  // b reused the block a freed: first fit from the start of AllocatableTCM.
  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.ops[1].out.address, tcm(0, tcm0));
  EXPECT_EQ(r.ops[2].out.address, tcm(0, tcm0 + 128));
}

} // namespace
} // namespace kb
