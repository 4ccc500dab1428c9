// Exact latencies of a kernel's loads and stores on the default machine,
// derived by hand from the timing model (DESIGN §4): 1 GHz, PE wires 1 ns,
// DMA setup 8 cycles, pe_dma<->xbar 1 ns / 256 GB/s, xbar 2 ns,
// xbar<->hbm 1 ns / 512 GB/s, HBM 512 GB/s / 100 ns; xfer(B, bw) =
// ceil(B * 1000 / bw) ps.
//
// A load of 64 B (1x16 f32) from the PE's own HBM, issued at t:
//   PE_CPU -> PE_SCHEDULER wire: t + 1; the feeder sends the token at once,
//   the DMA read channel takes it at t + 2; setup to t + 10; the request
//   (no payload) reaches the xbar at t + 11, leaves it at t + 13, reaches
//   HBM at t + 14. HBM starts at t + 14, xfer(64, 512) = 125 ps: the data
//   head leaves at t + 114, its tail at t + 114.125. hbm -> xbar: head
//   t + 115, tail t + 115.125; xbar: t + 117 / t + 117.125; xbar -> pe_dma
//   at 256 GB/s: xfer(64, 256) = 250 ps, tail = max(117 + 0.25, 117.125):
//   arrives t + 118, tail t + 118.25. The channel ends at the tail,
//   t + 118.25; tile-done reaches the scheduler at t + 119.25, the
//   command-done notice PE_CPU at t + 120.25 ns.
//
// The kernel starts at its launch (DESIGN §4): the M_CPU sends it at 0,
// m_cpu -> noc 1 ns, the NOC's 4 ns, noc -> pe_cpu 1 ns: t = launch_ps =
// 6 ns for the first command; the times below are counted from there.

#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::figure;
using test::launch_ps;
using test::hbm;
using test::run_kernel_on_pe0;

const std::string cpu = "sip0.cube0.pe0.pe_cpu";

TEST(KernelTiming, OneSmallLoadTakes120Point25Nanoseconds) {
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {1, 16}); });
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(figure(r.run, cpu, "cmd1.issue_ps"), launch_ps);
  EXPECT_EQ(figure(r.run, cpu, "cmd1.done_ps"), launch_ps + 120250u);
  EXPECT_EQ(figure(r.run, cpu, "cmd1.tiles"), 1u);
  EXPECT_EQ(figure(r.run, cpu, "kernel.end_ps"), launch_ps + 120250u);
  EXPECT_EQ(figure(r.run, cpu, "kernel.finished"), 1u);
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].t_start_ps, launch_ps + 2000u);
  EXPECT_EQ(r.ops[0].t_end_ps, launch_ps + 118250u);
}

TEST(KernelTiming, TheNextLoadIsIssuedWhenTheFirstOneReturns) {
  // Everything is idle again by 120.25 ns: the same 120.25 ns once more.
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    tl.load({hbm(0), dtype::f32}, {1, 16});
    tl.load({hbm(4096), dtype::f32}, {1, 16});
  });
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(figure(r.run, cpu, "cmd2.issue_ps"), launch_ps + 120250u);
  EXPECT_EQ(figure(r.run, cpu, "cmd2.done_ps"), launch_ps + 240500u);
  EXPECT_EQ(figure(r.run, cpu, "kernel.end_ps"), launch_ps + 240500u);
}

TEST(KernelTiming, AStridedLoadCostsItsBytesNotItsSpan) {
  // 2 rows of 64 B, 4 KiB apart: 128 B. HBM xfer 250 ps: head 114, tail
  // 114.25; hbm -> xbar tail 115.25; xbar 117 / 117.25; xbar -> pe_dma
  // xfer(128, 256) = 500 ps: tail max(117.5, 117.25) -> arrives 118.5.
  // Done at 118.5 + 2 = 120.5 ns.
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {2, 16, 1024}); });
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(figure(r.run, cpu, "cmd1.done_ps"), launch_ps + 120500u);
}

TEST(KernelTiming, A32KibLoadMatchesTheDmaWorkedExample) {
  // DESIGN §4: 244 ns from the take (at 2) to the tail: 246; done at 248.
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) { tl.load({hbm(0), dtype::f32}, {1, 8192}); });
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(figure(r.run, cpu, "cmd1.done_ps"), launch_ps + 248000u);
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].t_end_ps, launch_ps + 246000u);
}

// A store of the loaded 64 B, issued at t = 120.25 when the load returns:
//   the DMA write channel takes it at t + 2, setup to t + 10; the 64 B go
//   on pe_dma -> xbar (xfer 250 ps): head t + 11, tail t + 11.25; xbar:
//   t + 13 / t + 13.25; xbar -> hbm (xfer 125 ps): s = t + 13, tail =
//   max(t + 13.125, t + 13.25): head t + 14, tail t + 14.25. HBM: s = t + 14,
//   free = max(s + 0.125, t + 14.25) = t + 14.25; the ack leaves at
//   t + 114.25, reaches the xbar at t + 115.25, leaves it at t + 117.25 and
//   pe_dma at t + 118.25: the channel ends; done at PE_CPU t + 120.25 =
//   240.5 ns.
TEST(KernelTiming, AStoreIsDoneWhenItsAckReturns) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 16});
    tl.wait(tl.store({hbm(4096), dtype::f32}, x));
  });
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(figure(r.run, cpu, "cmd2.issue_ps"), launch_ps + 120250u);
  EXPECT_EQ(figure(r.run, cpu, "cmd2.done_ps"), launch_ps + 240500u);
  EXPECT_EQ(figure(r.run, cpu, "kernel.end_ps"), launch_ps + 240500u);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_EQ(r.ops[1].op_name, "dma_write");
  EXPECT_EQ(r.ops[1].t_start_ps, launch_ps + 122250u);
  EXPECT_EQ(r.ops[1].t_end_ps, launch_ps + 238500u);
}

TEST(KernelTiming, AStoreDoesNotSuspendTheKernel) {
  // The store is issued at 120.25 and the kernel returns at once, without
  // waiting; the store still completes (the run only ends when it has).
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 16});
    tl.store({hbm(4096), dtype::f32}, x);
  });
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(figure(r.run, cpu, "kernel.end_ps"), launch_ps + 120250u);
  EXPECT_EQ(figure(r.run, cpu, "cmd2.done"), 1u);
  EXPECT_EQ(figure(r.run, cpu, "cmd2.done_ps"), launch_ps + 240500u);
}

TEST(KernelTiming, AKernelThatIssuesNothingEndsAtItsLaunch) {
  const auto r = run_kernel_on_pe0([](tl::context&) {});
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(figure(r.run, cpu, "kernel.finished"), 1u);
  EXPECT_EQ(figure(r.run, cpu, "kernel.end_ps"), launch_ps);
  EXPECT_EQ(figure(r.run, cpu, "kernel.tcm_peak_bytes"), 0u);
}

} // namespace
} // namespace kb
