// Kernel launch and completion (DESIGN §4, issue 11): host -> M_CPU -> NOC
// -> PE_CPU, each hop a link, and back. Default machine: m_cpu <-> noc and
// noc <-> pe_cpu links 1 ns / 256 GB/s, NOC +4 ns to head and tail, a 64 B
// descriptor per PE (xfer 0.25 ns on the 256 GB/s link).
//
// With host_latency_ns = 100, --pes 3, one 128^3 f16 tile each:
//   the launch reaches the M_CPU at 100 ns; it sends PE0's descriptor at
//   100, PE1's when the link is free at 100.25, PE2's at 100.5. Each
//   reaches the NOC 1 ns later, leaves it 4 ns after that and its PE_CPU
//   1 ns later: PE0 issues at 106, PE1 at 106.25, PE2 at 106.5.
//   PE0 runs the DESIGN worked example alone at first: done 3048 ns after
//   its issue, at 3154 ns (PE1 and PE2 wait for the shared HBM: 3218, 3282).
//   The last completion leaves PE2's CPU at 3282, reaches the NOC at 3283,
//   leaves it at 3287, the M_CPU at 3288 (the run's last event), and the
//   host 100 ns later: the kernel's latency is 3388 ns.

#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

TEST(Launch, GoesHostMCpuNocPeCpuAndBack) {
  const auto r = run_kernbench(
    "run --M 128 --K 128 --N 128 --pes 3 --set cube.m_cpu.host_latency_ns=100 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // PE_SCHEDULER releases the tile 1 ns later (the PE_CPU -> PE_SCHEDULER link).
  EXPECT_THAT(r.out, HasSubstr("  sip0.cube0.pe0     cmd 1        1 tiles  issue          106 ns  "
                               "start          107 ns  done         3154 ns  latency         "
                               "3048 ns  gemm 128x128x128 f16 tiles 128x128x128\n"));
  EXPECT_THAT(r.out, HasSubstr("  sip0.cube0.pe1     cmd 1        1 tiles  issue      106.250 ns"));
  EXPECT_THAT(r.out, HasSubstr("  sip0.cube0.pe2     cmd 1        1 tiles  issue      106.500 ns  "
                               "start      107.500 ns  done         3282 ns"));
  EXPECT_THAT(r.out, HasSubstr("\nsimulated time: 3288 ns\nkernel latency: 3388 ns (host launch "
                               "-> host receipt of the last completion, through M_CPU and NOC)\n"));
}

TEST(Launch, PesAreCountedByNumberAndLaunchedInThatOrder) {
  // --pes 12 on a 64-PE cube: pe0..pe11 (not pe0, pe1, pe10, ... as names
  // sort); their descriptors leave the M_CPU 0.25 ns apart in that order,
  // so pe10 issues at 6 + 10 x 0.25 = 8.5 ns and pe11 at 8.75 ns.
  const auto r = run_kernbench("run --topology " + test::source_dir() +
                               "/config/scale/1sip_4cube_64pe.yaml --pes 12 --M 64 --K 64 "
                               "--N 64 --tile 64 64 64 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  sip0.cube0.pe9     cmd 1        1 tiles  issue        8.250 ns"));
  EXPECT_THAT(r.out, HasSubstr("  sip0.cube0.pe10    cmd 1        1 tiles  issue        8.500 ns"));
  EXPECT_THAT(r.out, HasSubstr("  sip0.cube0.pe11    cmd 1        1 tiles  issue        8.750 ns"));
  EXPECT_EQ(r.out.find("sip0.cube0.pe12 "), std::string::npos);
  EXPECT_LT(r.out.find("sip0.cube0.pe2 "), r.out.find("sip0.cube0.pe10 "));
}

TEST(Launch, AKernelRunReportsItsLatencyAsTheHostSeesIt) {
  // One program on PE0: a 64x64x64 GEMM (block_m 64, tile 64), issued at
  // its launch (6 ns) and done 872 ns later: the kernel returns at 878 ns;
  // its completion reaches the M_CPU 1 + 4 + 1 ns later, and the host
  // (host_latency_ns 0) then: 884 ns.
  const auto r = run_kernbench("run --kernel gemm --pes 1 --arg M=64 --arg K=64 --arg N=64 "
                               "--arg block_m=64 --arg tile=64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nsimulated time: 884 ns\nkernel latency: 884 ns (host launch -> "
                               "host receipt of the last completion, through M_CPU and NOC)\n"));
  EXPECT_THAT(r.out, HasSubstr("\nkernel time (start -> return) over 1 PE(s): median 872 ns, "
                               "max 872 ns (sip0.cube0.pe0)\n"));
  // The CSV and the JSON carry it too (kernel_latency_ps, ADR-0045).
  const std::string dir = test::temp_dir("launch_latency");
  const auto c = run_kernbench("run --quiet --kernel gemm --pes 1 --arg M=64 --arg K=64 --arg N=64 "
                               "--arg block_m=64 --arg tile=64 --per-pe --csv " + dir +
                               "/r.csv --json " + dir + "/r.json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_THAT(c.out, HasSubstr("  sip0.cube0.pe0     start          6 ns  return          878 ns"));
  const std::string csv = test::slurp(dir + "/r.csv");
  EXPECT_THAT(csv, HasSubstr("end_ps,max_latency_ps,kernel_latency_ps,"));
  EXPECT_THAT(csv, HasSubstr(",884000,872000,884000,"));
  EXPECT_THAT(test::slurp(dir + "/r.json"), HasSubstr("\"kernel_latency_ps\": 884000\n"));
}

} // namespace
} // namespace kb
