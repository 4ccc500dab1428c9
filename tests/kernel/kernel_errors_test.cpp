// A kernel's misuse of the tl:: API ends the run with a message naming the
// kernel and its PE, checked here word for word: out-of-range, misaligned
// and empty loads, TCM overflow, a load of what the kernel's own GEMM
// wrote, store mistakes, unknown commands and grid axes, and an exception
// of the kernel's own.

#include "runtime/kernel/kernel_fiber.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

namespace kb {
namespace {

using test::hbm;
using test::run_kernel_on_pe0;

/// vm.max_map_count.
size_t max_maps() {
  std::ifstream f("/proc/sys/vm/max_map_count");
  size_t n = 0;
  f >> n;
  return n;
}

/// The run error of `body` run as kernel "k" on pe0; "" if it ran cleanly.
std::string error_of(test::test_kernel body) {
  return run_kernel_on_pe0(std::move(body)).run.error;
}

/// A run error raised by PE_CPU at time `ps` with `what`. A kernel starts
/// at its launch (test::launch_ps) and runs on when the notice of what it
/// waited for arrives: a small load of B bytes issued at the start is back at 120 ns + xfer(B, 256 GB/s) (kernel_timing_test
/// derives it; the 256 GB/s link holds the tail): 16 B at 120.063 ns, 32 B
/// at 120.125 ns, 64 B at 120.25 ns.
std::string cpu_error(uint64_t ps, const std::string& what) {
  return "sip0.cube0.pe0.pe_cpu at t=" + std::to_string(ps) + " ps: " + what;
}

TEST(KernelErrors, ALoadOutsideEveryMemoryNamesTheAddress) {
  // sip0.cube5 does not exist.
  const uint64_t a = global_address{mem_space::hbm, 0, 5, 0, 0}.encode();
  EXPECT_EQ(error_of([&](tl::context& tl) { tl.load({a, dtype::f32}, {1, 4}); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0 (program 0): load of 1x4 f32: address 0x500000000000 "
                         "(hbm of sip0.cube5) is outside every memory of the machine"));
}

TEST(KernelErrors, AMisalignedLoadNamesTheElementSize) {
  EXPECT_EQ(error_of([](tl::context& tl) { tl.load({hbm(2), dtype::f32}, {1, 4}); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0 (program 0): load of 1x4 f32: address 0x2 (hbm of "
                         "sip0.cube0) is not aligned to its f32 elements (4 B)"));
  // f16 needs 2 B only.
  EXPECT_EQ(error_of([](tl::context& tl) { tl.load({hbm(2), dtype::f16}, {1, 4}); }), "");
}

TEST(KernelErrors, AnEmptyBlockOrAStrideBelowTheRowIsRefused) {
  EXPECT_EQ(error_of([](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {0, 4}); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0 (program 0): load of a 0x4 block: rows and cols must "
                         "be at least 1"));
  EXPECT_EQ(error_of([](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {2, 8, 4}); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0 (program 0): load: a row stride of 4 elements is "
                         "below the 8 columns"));
}

TEST(KernelErrors, LoadingMoreThanAllocatableTcmIsATcmOverflow) {
  // Default pe_tcm: 4096 KiB, 2560 KiB reserved: 1572864 B allocatable.
  EXPECT_EQ(error_of([](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {1, 393217}); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0 (program 0): TCM overflow: a 1x393217 f32 tensor "
                         "needs 1572868 B, but 1572864 B of the 1572864 B AllocatableTCM free "
                         "(largest block 1572864 B)"));
  // Exactly all of it fits.
  EXPECT_EQ(error_of([](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {1, 393216}); }), "");
}

TEST(KernelErrors, TcmOverflowCountsTheTensorsStillAlive) {
  // A 1 MiB tensor stays alive; the next 1 MiB does not fit in the 512 KiB
  // left. The error comes when the first load is back (cmd1.done_ps).
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor a = tl.load({hbm(0), dtype::f32}, {256, 1024});
    tl.load({hbm(0), dtype::f32}, {256, 1024});
  });
  const uint64_t t = test::figure(r.run, "sip0.cube0.pe0.pe_cpu", "cmd1.done_ps");
  EXPECT_EQ(r.run.error,
            cpu_error(t, "kernel k on sip0.cube0.pe0 (program 0): TCM overflow: a 256x1024 f32 tensor "
                         "needs 1048576 B, but 524288 B of the 1572864 B AllocatableTCM free "
                         "(largest block 524288 B)"));
}

gemm_plan_args small_gemm() {
  gemm_plan_args g;
  g.m = g.k = g.n = 32;
  g.tile_m = g.tile_k = g.tile_n = 32;
  g.in_dtype = dtype::f32;
  g.a_addr = hbm(0);
  g.b_addr = hbm(64 * 1024);
  g.c_addr = hbm(128 * 1024);
  return g;
}

TEST(KernelErrors, ReadingWhatTheKernelsGemmWroteIsAnError) {
  // Even after the GEMM is done its result exists only in Phase 2: the load
  // gives a tensor without data (docs/adr/0043), whose data is an error.
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    tl.wait(tl.gemm(small_gemm()));
    const tl::tensor c = tl.load({hbm(128 * 1024 + 31 * 128), dtype::f32}, {1, 4}); // C's last row
    EXPECT_FALSE(c.ready());
    (void)c.at(0, 0);
  });
  const uint64_t t = test::figure(r.run, "sip0.cube0.pe0.pe_cpu", "cmd2.done_ps");
  EXPECT_EQ(r.run.error,
            cpu_error(t, "kernel k on sip0.cube0.pe0 (program 0): the data of a 1x4 f32 tensor loaded by "
                         "command 2 was read in Phase 1; the bytes it loaded hold a compute "
                         "result (command 1 of kernel k on sip0.cube0.pe0 wrote them), pending "
                         "until the Phase 2 replay (only loads of host data or of stores of "
                         "loaded data have data in Phase 1)"));
}

TEST(KernelErrors, LoadingNextToWhatTheGemmWroteIsFine) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    tl.wait(tl.gemm(small_gemm()));
    tl.load({hbm(128 * 1024 + 32 * 128), dtype::f32}, {1, 4}); // just past C
    tl.load({hbm(128 * 1024 - 16), dtype::f32}, {1, 4});       // just before C
  });
  EXPECT_EQ(r.run.error, "");
}

TEST(KernelErrors, StoreMistakesAreNamed) {
  EXPECT_EQ(error_of([](tl::context& tl) { tl.store({hbm(0), dtype::f32}, tl::tensor()); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0 (program 0): store of a tl::tensor that holds "
                         "nothing"));
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor x = tl.load({hbm(0), dtype::f32}, {2, 4});
    tl.store({hbm(4096), dtype::f16}, x);
  });
  EXPECT_EQ(r.run.error,
            cpu_error(test::launch_ps + 120125, "kernel k on sip0.cube0.pe0 (program 0): store of a f32 tensor through a f16 "
                              "pointer (convert it first)"));
  const auto s = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor x = tl.load({hbm(0), dtype::f32}, {2, 4});
    tl.store({hbm(4094), dtype::f32}, x);
  });
  EXPECT_EQ(s.run.error,
            cpu_error(test::launch_ps + 120125, "kernel k on sip0.cube0.pe0 (program 0): store of 2x4 f32: address 0xffe (hbm "
                              "of sip0.cube0) is not aligned to its f32 elements (4 B)"));
}

TEST(KernelErrors, WaitingForACommandNeverIssuedIsAnError) {
  EXPECT_EQ(error_of([](tl::context& tl) { tl.wait(tl::handle{7}); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0.pe_cpu: command 7 was never issued"));
}

TEST(KernelErrors, AGridAxisBeyondTwoIsAnError) {
  EXPECT_EQ(error_of([](tl::context& tl) { (void)tl.program_id(3); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0 (program 0): program_id(3): the grid has axes 0, 1 "
                         "and 2"));
  EXPECT_EQ(error_of([](tl::context& tl) { (void)tl.num_programs(5); }),
            cpu_error(test::launch_ps + 0, "kernel k on sip0.cube0.pe0 (program 0): num_programs(5): the grid has axes 0, 1 "
                         "and 2"));
}

TEST(KernelErrors, TheKernelsOwnExceptionEndsTheRunNamingKernelAndPe) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    tl.load({hbm(0), dtype::f32}, {1, 4});
    throw std::runtime_error("row 3 is not sorted");
  });
  EXPECT_EQ(r.run.error,
            cpu_error(test::launch_ps + 120063, "kernel k on sip0.cube0.pe0.pe_cpu (program 0) failed: row 3 is not sorted"));
}

TEST(KernelErrors, AKernelMayCatchItsOwnKernelErrorAndGoOn) {
  bool caught = false;
  const auto r = run_kernel_on_pe0([&](tl::context& tl) {
    try {
      tl.load({hbm(1), dtype::f32}, {1, 4});
    } catch (const tl::kernel_error&) {
      caught = true;
    }
    tl.load({hbm(0), dtype::f32}, {1, 4});
  });
  EXPECT_EQ(r.run.error, "");
  EXPECT_TRUE(caught);
  EXPECT_EQ(test::figure(r.run, "sip0.cube0.pe0.pe_cpu", "kernel.finished"), 1u);
}

TEST(KernelErrors, TheContextNamesItsKernelPeAndGrid) {
  std::string kernel, pe;
  uint32_t id = 9, n = 0;
  const auto r = test::run_kernels({{"sip0.cube0.pe3",
                                     [&](tl::context& tl) {
                                       kernel = tl.kernel_name();
                                       pe = tl.pe();
                                       id = tl.program_id();
                                       n = tl.num_programs();
                                     }}},
                                   nullptr, "mykernel");
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(kernel, "mykernel");
  EXPECT_EQ(pe, "sip0.cube0.pe3");
  EXPECT_EQ(id, 0u);
  EXPECT_EQ(n, 1u);
}

TEST(KernelErrors, AKernelPastTheStackLimitFailsNamingItAndTheRunEnds) {
  // Each kernel holds a stack of its own while it waits (here for its
  // load); with room for one more than the process holds, the second of
  // two kernels cannot start. (65,536 PEs of kernels in one process reach
  // the real limit, vm.max_map_count: two memory maps a stack.)
  const size_t held = kernel_fiber::stacks_held();
  const scoped_stack_limit limit(1);
  const auto body = [](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {1, 4}); };
  const auto out = test::run_kernels({{"sip0.cube0.pe0", body}, {"sip0.cube0.pe1", body}});
  // pe1's 64 B launch leaves the M_CPU behind pe0's: 64 B at 256 GB/s,
  // 0.25 ns later.
  EXPECT_EQ(out.run.error,
            "sip0.cube0.pe1.pe_cpu at t=" + std::to_string(test::launch_ps + 250) +
              " ps: kernel k on sip0.cube0.pe1.pe_cpu (program 0) failed: no kernel stack left: this "
              "process already holds " + std::to_string(held + 1) +
              " kernel stacks, the most its memory-map limit leaves room for (vm.max_map_count " +
              std::to_string(max_maps()) +
              ", two maps a stack); split the run over processes (--procs) so that each runs "
              "fewer kernels at once, or raise vm.max_map_count");
  EXPECT_EQ(kernel_fiber::stacks_held(), held); // the run's stacks are all back
}

} // namespace
} // namespace kb
