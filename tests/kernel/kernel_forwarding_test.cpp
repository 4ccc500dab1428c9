// Store visibility = issue time (seed ADR-0020 D3): a kernel's load sees the
// bytes of its own earlier stores, in full, in part, and through row
// strides. A load that overlaps a store still in flight starts only once
// that store is done (PE_SCHEDULER keeps the dependency), so the memory and
// the Phase 2 replay agree with what the kernel saw; once a store is done,
// the memory itself holds the bytes.

#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::iota;
using test::bytes_of;
using test::hbm;
using test::run_kernel_on_pe0;

std::vector<float> row(const tl::tensor& t, uint32_t r) {
  std::vector<float> v;
  for (uint32_t c = 0; c < t.cols(); ++c)
    v.push_back(t.at(r, c));
  return v;
}

/// src at hbm 0: 0..31; dst at hbm 4096: 100..131.
std::shared_ptr<memory_image> src_and_dst() {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(0, 32)));
  m->write(hbm(4096), bytes_of(iota(100, 32)));
  return m;
}

const tl::ptr src{hbm(0), dtype::f32};
const tl::ptr dst{hbm(4096), dtype::f32};

TEST(KernelForwarding, ALoadRightAfterAStoreSeesTheStoredBytes) {
  // A 32 KiB store first keeps the DMA write channel busy, so the small
  // store to dst is still queued when the load of dst is issued: the load
  // waits for it and then reads the stored bytes from memory.
  auto m = src_and_dst();
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor big = tl.load({hbm(1 << 20), dtype::f32}, {1, 8192});
      const tl::tensor x = tl.load(src, {1, 16});
      tl.store({hbm(2 << 20), dtype::f32}, big);
      tl.store(dst, x); // queued behind the big store
      seen = row(tl.load(dst, {1, 16}), 0);
    },
    m);
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, iota(0, 16));
  // The load's DMA read starts only after the store's DMA write is over
  // (its ack is back), so HBM served the store first.
  const op_record* read = nullptr;
  const op_record* write = nullptr;
  for (const auto& op : r.ops) {
    if (op.op_name == "dma_read" && op.inputs[0].address == dst.address)
      read = &op;
    if (op.op_name == "dma_write" && op.out.address == dst.address)
      write = &op;
  }
  ASSERT_TRUE(read && write);
  EXPECT_GE(read->t_start_ps, write->t_end_ps);
}

TEST(KernelForwarding, APartlyOverlappingStoreFillsOnlyItsBytes) {
  // x (0..15) goes to dst + 8 elements: the load of dst's first 16 sees
  // 100..107 from memory, then 0..7 from the store.
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor x = tl.load(src, {1, 16});
      tl.store(dst + 8, x);
      seen = row(tl.load(dst, {1, 16}), 0);
    },
    src_and_dst());
  ASSERT_EQ(r.run.error, "");
  std::vector<float> want = iota(100, 8);
  for (float v : iota(0, 8))
    want.push_back(v);
  EXPECT_EQ(seen, want);
}

TEST(KernelForwarding, StridedStoresForwardRowByRow) {
  // x = 2x4 block of src with rows 16 elements apart: (0..3), (16..19).
  // Stored to dst with rows 8 apart: dst[0..3] and dst[8..11]. A 2x8 load
  // of dst: (0 1 2 3 104 105 106 107), (16 17 18 19 112 113 114 115).
  std::vector<float> r0, r1;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor x = tl.load(src, {2, 4, 16});
      tl.store(dst, x, 8);
      const tl::tensor y = tl.load(dst, {2, 8});
      r0 = row(y, 0);
      r1 = row(y, 1);
    },
    src_and_dst());
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(r0, (std::vector<float>{0, 1, 2, 3, 104, 105, 106, 107}));
  EXPECT_EQ(r1, (std::vector<float>{16, 17, 18, 19, 112, 113, 114, 115}));
}

TEST(KernelForwarding, TheLaterOfTwoInFlightStoresWins) {
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor a = tl.load(src, {1, 4});     // 0..3
      const tl::tensor b = tl.load(src + 16, {1, 4}); // 16..19
      tl.store(dst, a);
      tl.store(dst + 2, b); // overwrites dst[2..3]
      seen = row(tl.load(dst, {1, 8}), 0);
    },
    src_and_dst());
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, (std::vector<float>{0, 1, 16, 17, 18, 19, 106, 107}));
}

TEST(KernelForwarding, ADoneStoreIsInTheMemory) {
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor x = tl.load(src, {1, 16});
      tl.wait(tl.store(dst, x));
      seen = row(tl.load(dst, {1, 16}), 0);
    },
    src_and_dst());
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, iota(0, 16));
  // Phase 2 agrees.
  EXPECT_EQ(r.final_image.read(hbm(4096), 64), bytes_of(iota(0, 16)));
}

TEST(KernelForwarding, AStoreFromAnotherPeIsNotForwarded) {
  // pe1 stores to dst at 120.25 ns without waiting; pe0 loads dst at 0, long
  // before: it sees the deployed bytes (nothing of pe1's is forwarded).
  std::vector<float> seen;
  const auto r = test::run_kernels(
    {{"sip0.cube0.pe1",
      [](tl::context& tl) { tl.store(dst, tl.load(src, {1, 4})); }},
     {"sip0.cube0.pe0", [&](tl::context& tl) { seen = row(tl.load(dst, {1, 4}), 0); }}},
    src_and_dst());
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, iota(100, 4));
}

} // namespace
} // namespace kb
