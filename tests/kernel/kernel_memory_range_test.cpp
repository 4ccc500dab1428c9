// What a kernel may touch beyond its own cube's HBM (tl::ptr: "HBM, SRAM or
// another PE's TCM"), and where the range checks end: the shared SRAM holds
// what is stored to it, another PE's loaded tensor is in that PE's TCM, and
// blocks running past the end of a memory are refused.

#include "runtime/address.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb {
namespace {

using test::iota;
using ::testing::HasSubstr;
using test::bytes_of;
using test::hbm;
using test::run_kernel_on_pe0;
using test::run_kernels;
using test::tcm;

constexpr uint64_t tcm0 = 2560 * 1024; // start of AllocatableTCM

std::vector<float> row(const tl::tensor& t) {
  std::vector<float> v;
  for (uint32_t c = 0; c < t.cols(); ++c)
    v.push_back(t.at(0, c));
  return v;
}

std::shared_ptr<memory_image> iota_at_zero() {
  auto m = std::make_shared<memory_image>();
  m->write(hbm(0), bytes_of(iota(1, 16)));
  return m;
}

TEST(KernelMemoryRange, AStoreToTheSharedSramIsReadBack) {
  const uint64_t sram = global_address{mem_space::sram, 0, 0, 0, 4096}.encode();
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      tl.wait(tl.store({sram, dtype::f32}, tl.load({hbm(0), dtype::f32}, {1, 16})));
      seen = row(tl.load({sram, dtype::f32}, {1, 16}));
    },
    iota_at_zero());
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, iota(1, 16));
  EXPECT_EQ(r.final_image.read(sram, 64), bytes_of(iota(1, 16)));
}

TEST(KernelMemoryRange, ABlockWhoseRowsReachAnotherCubeIsRefused) {
  // Two rows 2^44 B apart: the second row would be in sip0.cube1 (absent).
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {2, 1, uint64_t{1} << 42}); });
  EXPECT_EQ(r.run.error,
            "sip0.cube0.pe0.pe_cpu at t=6000 ps: kernel k on sip0.cube0.pe0 (program 0): load of 2x1 f32: "
            "[0x0 (hbm of sip0.cube0), +17592186044420 B) runs past the end of sip0.cube0.hbm "
            "(68719476736 B; its last byte 0x100000000003 (hbm of sip0.cube1) is in no memory)");
}

// An HBM block that runs past the 64 GiB offset field of its address is
// refused, although the fabric map's key ignores the PE field of HBM and
// SRAM addresses (so 0x1000000000 still "belongs" to sip0.cube0's HBM):
// both ends of a block must decode to the same memory.
TEST(KernelMemoryRange, AnHbmBlockRunningPast64GibIsRefused) {
  const uint64_t a = hbm(global_address::max_offset - 7); // the last 8 B, then 8 more
  const auto r = run_kernel_on_pe0([&](tl::context& tl) { tl.load({a, dtype::f32}, {1, 4}); });
  EXPECT_THAT(r.run.error,
              HasSubstr("kernel k on sip0.cube0.pe0 (program 0): load of 1x4 f32: [0xffffffff8 (hbm of "
                        "sip0.cube0), +16 B) runs past the end of sip0.cube0.hbm"));
}

// A load from another PE's TCM beyond that TCM's size (default 4096 KiB) is
// refused: the fabric map gives every TCM the whole offset range, the
// kernel's check knows each TCM's size_kib.
TEST(KernelMemoryRange, ALoadBeyondAnotherPesTcmSizeIsRefused) {
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) { tl.load({tcm(1, 5 * 1024 * 1024), dtype::f32}, {1, 4}); });
  EXPECT_THAT(r.run.error, HasSubstr("kernel k on sip0.cube0.pe0 (program 0): load of 1x4 f32"));
}

// A kernel's loaded tensor lives in its PE's TCM in both phases: PE_DMA
// also writes the loaded bytes into the TCM block the tensor names, so
// another PE's kernel loading that address in Phase 1 reads what the
// Phase 2 replay of the same load reads.
/// Loads `flag` until it is nonzero (at most 100 times); returns the last
/// load (the raised flag).
tl::tensor wait_for_flag(tl::context& tl, tl::ptr flag) {
  tl::tensor f;
  for (int i = 0; i < 100; ++i)
    if ((f = tl.load(flag, {1, 1})).at(0, 0) != 0)
      break;
  return f;
}

TEST(KernelMemoryRange, AnotherPeReadsALoadedTensorFromItsTcm) {
  // pe1 loads 1..16 into its TCM (its first block, tcm(1, 512 KiB)) and
  // raises a flag at hbm 8192; pe0 polls the flag, then loads pe1's tensor
  // and copies it to hbm 12288, then lowers pe1's wait with a flag at 16384.
  const tl::ptr flag{hbm(8192), dtype::f32}, done{hbm(16384), dtype::f32};
  std::vector<float> seen;
  const auto r = run_kernels(
    {{"sip0.cube0.pe1",
      [&](tl::context& tl) {
        const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 16});
        EXPECT_EQ(x.address(), tcm(1, tcm0));
        tl.wait(tl.store(flag, x));
        (void)wait_for_flag(tl, done); // keep x alive until pe0 has read it
      }},
     {"sip0.cube0.pe0",
      [&](tl::context& tl) {
        const tl::tensor f = wait_for_flag(tl, flag);
        const tl::tensor y = tl.load({tcm(1, tcm0), dtype::f32}, {1, 16});
        seen = row(y);
        tl.wait(tl.store({hbm(12288), dtype::f32}, y));
        tl.wait(tl.store(done, f));
      }}},
    iota_at_zero());
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, iota(1, 16)) << "Phase 1: pe0 read pe1's TCM tensor";
  ASSERT_TRUE(r.replayed);
  EXPECT_EQ(r.final_image.read(hbm(12288), 64), bytes_of(iota(1, 16)))
    << "Phase 2: the copy of pe1's TCM tensor";
}

// Issue 28, ADR-0043: a compute result in pe1's TCM (a tl.scale of a loaded
// tensor) has no Phase 1 data: pe0 loading it from there gets a tensor
// without data, never the stale bytes the TCM holds; storing it works (the
// replay fills it), reading its data is an error naming both commands,
// kernels and PEs.
TEST(KernelMemoryRange, LoadingAnotherPesTcmComputeResultGivesAPendingTensor) {
  for (const bool peek : {false, true}) {
    const tl::ptr flag{hbm(8192), dtype::f32};
    uint64_t y_at = 0;
    bool ready = true;
    const auto r = run_kernels(
      {{"sip0.cube0.pe1",
        [&](tl::context& tl) {
          const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 16}); // command 1
          const tl::tensor y = tl.scale(x, 2.0);                        // command 2
          y_at = y.address();
          tl.wait(tl.store(flag, x)); // command 3: the flag (x[0] = 1)
          for (int i = 0; i < 100; ++i)
            (void)tl.load(flag, {1, 1}); // keep y alive meanwhile
        }},
       {"sip0.cube0.pe0",
        [&](tl::context& tl) {
          (void)wait_for_flag(tl, flag);
          const tl::tensor y = tl.load({y_at, dtype::f32}, {1, 16});
          ready = y.ready();
          if (peek)
            (void)y.at(0, 0);
          tl.wait(tl.store({hbm(12288), dtype::f32}, y));
        }}},
      iota_at_zero());
    EXPECT_FALSE(ready);
    if (peek) {
      EXPECT_THAT(r.run.error, HasSubstr("sip0.cube0.pe0.pe_cpu at t="));
      EXPECT_THAT(r.run.error,
                  HasSubstr("kernel k on sip0.cube0.pe0 (program 0): the data of a 1x16 f32 tensor loaded by "
                            "command "));
      EXPECT_THAT(r.run.error, HasSubstr("the bytes it loaded hold a compute result (command 2 "
                                         "of kernel k on sip0.cube0.pe1 wrote them)"));
      continue;
    }
    ASSERT_EQ(r.run.error, "");
    ASSERT_TRUE(r.replayed);
    std::vector<float> twice = iota(1, 16);
    for (float& v : twice)
      v *= 2;
    EXPECT_EQ(r.final_image.read(hbm(12288), 64), bytes_of(twice))
      << "Phase 2: pe1's compute result, through its TCM, pe0's load and store";
  }
}

// Once the result's block is freed and a load fills it again, its bytes
// exist in Phase 1: another PE reads them (no error from the old mark).
TEST(KernelMemoryRange, AReusedTcmBlockIsLoadableAgain) {
  const tl::ptr flag{hbm(8192), dtype::f32}, done{hbm(16384), dtype::f32};
  uint64_t z_at = 0;
  std::vector<float> seen;
  const auto r = run_kernels(
    {{"sip0.cube0.pe1",
      [&](tl::context& tl) {
        const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 16});
        uint64_t y_at = 0;
        {
          const tl::tensor y = tl.scale(x, 2.0);
          y_at = y.address();
          tl.wait_all();
        }
        const tl::tensor z = tl.load({hbm(0), dtype::f32}, {1, 16});
        EXPECT_EQ(z.address(), y_at) << "the freed block is reused";
        z_at = z.address();
        tl.wait(tl.store(flag, x));
        (void)wait_for_flag(tl, done);
      }},
     {"sip0.cube0.pe0",
      [&](tl::context& tl) {
        const tl::tensor f = wait_for_flag(tl, flag);
        seen = row(tl.load({z_at, dtype::f32}, {1, 16}));
        tl.wait(tl.store(done, f));
      }}},
    iota_at_zero());
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, iota(1, 16));
}

} // namespace
} // namespace kb
