// The TCM block of a tensor being stored must outlive the store's DMA write.
//
// When the kernel drops its last copy of a tensor while a store of it is
// in flight (the natural `tl.store(dst, tl.load(src, ...))`), the block is
// not reused until every command that used it is done: the kernel's next
// load is handed another block, and the Phase 2 replay writes the right
// bytes to `dst` (a reused block would have its new data read into it
// before the store's write out of it in the op log).

#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace kb {
namespace {

using test::floats_at;
using test::iota;
using test::bytes_of;
using test::hbm;
using test::run_kernel_on_pe0;

// A 32 KiB store (its DMA write is served 250..494 ns) followed at once by
// a 64 B load from the shared SRAM (over the NOC, so it does not queue
// behind the store's bytes on the pe_dma -> xbar link: served 250..~290
// ns), which is handed the block the store reads. Its dma_read sorts before
// the store's dma_write in the op log, so the replay copies the SRAM bytes
// into dst's first 16 elements.
TEST(KernelTcmLifetime, AStoredTensorsBlockIsNotReusedWhileTheStoreStillReadsIt) {
  const uint64_t sram = global_address{mem_space::sram, 0, 0, 0, 0}.encode();
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(0, 8192)));     // src: 32 KiB
  m->write(sram, bytes_of(iota(-1000, 16)));     // other
  const tl::ptr src{hbm(0), dtype::f32}, other{sram, dtype::f32}, dst{hbm(2 << 20), dtype::f32};
  std::vector<float> phase1_dst;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      tl.store(dst, tl.load(src, {1, 8192})); // the loaded tensor dies here
      const tl::tensor o = tl.load(other, {1, 16});
      tl.wait_all();
      const tl::tensor back = tl.load(dst, {1, 16});
      for (uint32_t c = 0; c < 16; ++c)
        phase1_dst.push_back(back.at(0, c));
    },
    m);
  ASSERT_EQ(r.run.error, "");
  // Phase 1 memory is right: the store carried its bytes.
  EXPECT_EQ(phase1_dst, iota(0, 16));
  // The hazard itself: the next load's DMA read writes the TCM block the
  // store's DMA write reads, while that write is still being served.
  const op_record* write = nullptr;
  const op_record* reuse = nullptr;
  for (const auto& op : r.ops) {
    if (op.op_name == "dma_write")
      write = &op;
    if (op.op_name == "dma_read" && op.inputs[0].address == other.address)
      reuse = &op;
  }
  ASSERT_TRUE(write && reuse);
  if (write->inputs[0].address == reuse->out.address) {
    EXPECT_GE(reuse->t_start_ps, write->t_end_ps)
      << "the load was given TCM block " << std::hex << reuse->out.address
      << " while the store still reads it";
  }
  // And Phase 2 disagrees with Phase 1: dst must hold all of src.
  ASSERT_TRUE(r.replayed);
  EXPECT_EQ(floats_at(r.final_image, dst.address, 16), iota(0, 16));
  EXPECT_EQ(floats_at(r.final_image, dst.address + 64, 8192 - 16), iota(16, 8192 - 16));
}

// The same program holding the tensor until the store is done: correct.
TEST(KernelTcmLifetime, AStoredTensorHeldUntilTheStoreIsDoneReplaysCorrectly) {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(0, 8192)));
  const uint64_t sram = global_address{mem_space::sram, 0, 0, 0, 0}.encode();
  m->write(sram, bytes_of(iota(-1000, 16)));
  const tl::ptr src{hbm(0), dtype::f32}, other{sram, dtype::f32}, dst{hbm(2 << 20), dtype::f32};
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor x = tl.load(src, {1, 8192});
      tl.store(dst, x);
      const tl::tensor o = tl.load(other, {1, 16});
      tl.wait_all();
    },
    m);
  ASSERT_EQ(r.run.error, "");
  ASSERT_TRUE(r.replayed);
  EXPECT_EQ(floats_at(r.final_image, dst.address, 8192), iota(0, 8192));
}

} // namespace
} // namespace kb
