// Issue 27 item 2: where a kernel's time goes and the critical path of its
// latency (runtime/report/pe_commands.hpp, docs/adr/0024-one-report-for-
// every-run.md), derived by hand on the default machine (DESIGN §4; the
// load and store latencies as in kernel_timing_test.cpp).
//
// The kernel: a = load 1x16 f32 (64 B), b = load 16x16 f32 (1 KiB), c =
// dot(a, b) (1x16 f32), store c (64 B), wait_all. Launch t0 = 6 ns.
//   cmd 1 load a: issued t0, done t0 + 120.25 = 126.25 (the kernel blocked).
//   cmd 2 load b, issued 126.25 when cmd 1's notice resumed the kernel:
//     take +2, setup +10, request at HBM +14; HBM xfer(1024, 512) = 2 ns:
//     head +114, tail +116; xbar head +117, tail +119; xbar -> pe_dma
//     xfer(1024, 256) = 4 ns: tail max(117 + 4, 119) + 1 = +122; tile-done
//     +123, notice +124: done 250.25 (the kernel blocked again).
//   cmd 3 dot, issued 250.25: at PE_SCHEDULER +1 (its start: nothing held
//     it), PE_GEMM takes it +2, ceil(1/32) x ceil(16/32) x 16 + 32 + 32 =
//     80 cycles to +82, tile-done +83, notice +84: done 334.25.
//   cmd 4 store c, issued 250.25 with the dot (no wait), arrives 251.25 and
//     waits there for cmd 3 (its data): started 333.25, when the dot's
//     tile-done reached PE_SCHEDULER; the write channel takes it at 334.25
//     and ends 116.25 ns later, at 450.5, when the ack is back (as for the
//     store of 64 B in kernel_timing_test.cpp); tile-done 451.5, notice 452.5.
//   The kernel waits on handles from 250.25 to 452.5: 202.25 ns; blocked on
//   loads 120.25 + 124 = 244.25 ns; computing 0.
// The critical path, back from the kernel's last resume (cmd 4): cmd 4
// waited for cmd 3's data; cmd 3 started on arrival, issued after cmd 2's
// notice; cmd 2 after cmd 1's; cmd 1 at the kernel's start.

#include "runtime/report/pe_commands.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::hbm;
using test::launch_ps;
using test::run_kernel_on_pe0;

TEST(KernelCriticalPath, TwoLoadsADotAndAStore) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor a = tl.load({hbm(0), dtype::f32}, {1, 16});
    const tl::tensor b = tl.load({hbm(4096), dtype::f32}, {16, 16});
    tl.store({hbm(8192), dtype::f32}, tl.dot(a, b));
    tl.wait_all();
  });
  ASSERT_EQ(r.run.error, "");
  const auto pes = commands_of(r.run.result, {"sip0.cube0.pe0"});
  ASSERT_EQ(pes.size(), 1u);
  const auto& rows = pes[0].rows;
  ASSERT_EQ(rows.size(), 4u);
  const uint64_t t0 = launch_ps;
  struct want {
    command_call call;
    uint64_t issue, start, done, after;
    held_why held;
    uint64_t held_by;
  };
  const want w[] = {
    {command_call::load, t0, t0 + 1000, t0 + 120250, 0, held_why::none, 0},
    {command_call::load, t0 + 120250, t0 + 121250, t0 + 244250, 1, held_why::none, 0},
    {command_call::dot, t0 + 244250, t0 + 245250, t0 + 328250, 2, held_why::none, 0},
    {command_call::store, t0 + 244250, t0 + 327250, t0 + 446500, 2, held_why::depends, 3},
  };
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i + 1);
    EXPECT_EQ(rows[i].id, i + 1);
    EXPECT_EQ(static_cast<command_call>(rows[i].call), w[i].call);
    EXPECT_EQ(rows[i].issue_ps, w[i].issue);
    EXPECT_EQ(rows[i].start_ps, w[i].start);
    EXPECT_EQ(rows[i].done_ps, w[i].done);
    EXPECT_EQ(rows[i].after, w[i].after);
    EXPECT_EQ(static_cast<held_why>(rows[i].held), w[i].held);
    EXPECT_EQ(rows[i].held_by, w[i].held_by);
  }
  EXPECT_EQ(rows[2].what, "dot 1x16x16 f32");
  EXPECT_EQ(rows[2].flops, 2u * 1 * 16 * 16);
  EXPECT_EQ(rows[1].what, "load 16x16 f32 (1024 B) from hbm of sip0.cube0");

  const kernel_time t = kernel_time_of(pes[0]);
  EXPECT_TRUE(t.finished);
  EXPECT_EQ(t.start_ps, t0);
  EXPECT_EQ(t.end_ps, t0 + 446500);
  EXPECT_EQ(t.blocked_load_ps, 244250u);
  EXPECT_EQ(t.wait_ps, 202250u);
  EXPECT_EQ(t.tcm_wait_ps, 0u);
  EXPECT_EQ(t.running_ps(), 0u);
  EXPECT_EQ(t.last_resumed_by, 4u);

  const critical_path path = critical_path_of(pes);
  EXPECT_EQ(path.pe, "sip0.cube0.pe0");
  ASSERT_EQ(path.steps.size(), 4u);
  const std::string_view how[] = {"kernel", "kernel", "kernel", "depends"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(path.steps[i].command->id, i + 1);
    EXPECT_EQ(path.steps[i].joined_by, how[i]);
  }
}

// A wrong input: a PE whose kernel never returned has no critical path,
// and one that never ran a kernel has no time split.
TEST(KernelCriticalPath, NoPathWithoutAReturnedKernel) {
  run_result empty;
  const auto pes = commands_of(empty, {"sip0.cube0.pe0"});
  EXPECT_FALSE(kernel_time_of(pes[0]).ran);
  EXPECT_TRUE(critical_path_of(pes).steps.empty());
  EXPECT_TRUE(critical_path_of(pes).pe.empty());
}

} // namespace
} // namespace kb
