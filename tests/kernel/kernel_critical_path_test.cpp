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
// Where its time went, by what the PE had in its pipeline while the kernel
// was suspended (kernel_split.hpp; docs/adr/0045's worked example):
// suspended t0 -> 120.25 (cmd 1 from t0 + 1: loads 119.25, transit 1),
// 120.25 -> 244.25 (cmd 2 from 121.25: loads 123, transit 1), 244.25 ->
// 446.5 (cmd 3, the dot, from 245.25 to its notice at 328.25: computing
// 83; cmd 4, the store, from 327.25, alone from 328.25: stores 118.25;
// transit 1). PE_GEMM was busy 80 ns of the 83 (1 ns to it, its tile-done
// 1 ns back, its notice 1 ns on).

#include "runtime/machine/pipeline_stats.hpp"
#include "runtime/report/kernel_split.hpp"
#include "runtime/report/pe_commands.hpp"
#include "runtime/report/pe_groups.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::hbm;
using test::launch_ps;
using test::run_kernel_on_pe0;

void two_loads_a_dot_and_a_store(tl::context& tl) {
  const tl::tensor a = tl.load({hbm(0), dtype::f32}, {1, 16});
  const tl::tensor b = tl.load({hbm(4096), dtype::f32}, {16, 16});
  tl.store({hbm(8192), dtype::f32}, tl.dot(a, b));
  tl.wait_all();
}

TEST(KernelCriticalPath, TwoLoadsADotAndAStore) {
  const auto r = run_kernel_on_pe0(two_loads_a_dot_and_a_store);
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

TEST(KernelCriticalPath, TheTimeSplitChargesWhatTheAwaitedCommandWasDoing) {
  const auto r = run_kernel_on_pe0(two_loads_a_dot_and_a_store);
  ASSERT_EQ(r.run.error, "");
  const auto pes = commands_of(r.run.result, {"sip0.cube0.pe0"});
  const auto& rows = pes[0].rows;
  ASSERT_EQ(rows.size(), 4u);
  // Which notices resumed the kernel, and since when it was suspended.
  const bool resumed[] = {true, true, false, true};
  const uint64_t from[] = {launch_ps, launch_ps + 120250, 0, launch_ps + 244250};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i + 1);
    EXPECT_EQ(rows[i].resumed_kernel, resumed[i]);
    EXPECT_EQ(rows[i].blocked_from_ps, from[i]);
  }
  const kernel_split s = kernel_split_of(pes[0]);
  EXPECT_EQ(s.span_ps, 446500u);
  EXPECT_EQ(s.computing_ps, 83000u);
  EXPECT_EQ(s.loads_ps, 119250u + 123000u);
  EXPECT_EQ(s.stores_ps, 118250u);
  EXPECT_EQ(s.transit_ps, 3000u);
  EXPECT_EQ(s.running_ps, 0u);
  EXPECT_EQ(s.computing_ps + s.loads_ps + s.stores_ps + s.transit_ps + s.running_ps, s.span_ps);
  // PE_GEMM's busy time: 80 of the 83 ns charged to computing.
  const node_summary* gemm = find_node(r.run.result, "sip0.cube0.pe0.pe_gemm");
  ASSERT_NE(gemm, nullptr);
  uint64_t busy = 0;
  for (const auto& [lane, f] : lanes_of(*gemm))
    busy += f.busy;
  EXPECT_EQ(busy, 80000u);
}

// Overlap by hand: while the kernel is suspended (1 -> 9 ns), a load is in
// flight 2 -> 7 and a dot 6 -> 9: 1 -> 2 in transit, 2 -> 6 loads, 6 -> 9
// computing (the dot wins where both are); the span 0 -> 10 has 2 ns not
// suspended. A suspension past the kernel's return (a damaged table) is cut
// at the return, never counted beyond the span.
TEST(KernelCriticalPath, TheSplitGivesComputeThePlaceWhereUnitsOverlap) {
  pe_commands p;
  p.pe = "sip0.cube0.pe0";
  node_summary cpu;
  cpu.name = "sip0.cube0.pe0.pe_cpu";
  for (const auto& [s, v] : {std::pair{kernel_stats::finished, uint64_t{1}},
                             std::pair{kernel_stats::start_ps, uint64_t{0}},
                             std::pair{kernel_stats::end_ps, uint64_t{10000}}})
    cpu.figures.push_back({s.pattern, v, s.id});
  p.cpu = &cpu;
  const auto row = [](uint64_t id, command_call call, uint64_t start, uint64_t done) {
    command_stat c;
    c.id = id;
    c.done = true;
    c.call = static_cast<uint8_t>(call);
    c.start_ps = start;
    c.done_ps = done;
    return c;
  };
  p.rows = {row(1, command_call::load, 2000, 7000), row(2, command_call::dot, 6000, 9000)};
  p.rows[1].resumed_kernel = true; // the dot's notice ended the suspension from 1 ns
  p.rows[1].blocked_from_ps = 1000;
  kernel_split s = kernel_split_of(p);
  EXPECT_EQ(s.span_ps, 10000u);
  EXPECT_EQ(s.computing_ps, 3000u);
  EXPECT_EQ(s.loads_ps, 4000u);
  EXPECT_EQ(s.stores_ps, 0u);
  EXPECT_EQ(s.transit_ps, 1000u);
  EXPECT_EQ(s.running_ps, 2000u);
  p.rows[1].done_ps = 15000; // after the return at 10 ns
  s = kernel_split_of(p);
  EXPECT_EQ(s.computing_ps, 4000u);
  EXPECT_EQ(s.computing_ps + s.loads_ps + s.stores_ps + s.transit_ps + s.running_ps, 10000u);
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
