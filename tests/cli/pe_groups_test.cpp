// The summary of a run of many PEs: one line per unit, link and command over
// the PEs, with the least, the median and the most (runtime/report/pe_groups),
// and every PE's lines with --per-pe.

#include "tests/cli/cli_support.hpp"

#include "runtime/report/pe_groups.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

namespace kb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using test::run_kernbench;

TEST(PeGroups, NamesANodeByItsPlaceInThePeOrTheCube) {
  const auto pe = split_pe_node("sip1.cube2.pe37.pe_dma");
  ASSERT_TRUE(pe);
  EXPECT_EQ(pe->first, "sip1.cube2.pe37");
  EXPECT_EQ(pe->second, "pe_dma");
  EXPECT_FALSE(split_pe_node("sip1.cube2.xbar"));
  EXPECT_FALSE(split_pe_node("sip1.cube2.pex.pe_dma"));
  EXPECT_FALSE(split_pe_node("host"));
  EXPECT_EQ(group_of("sip1.cube2.pe37.pe_dma"), (std::pair<std::string, std::string_view>{
                                                   "pe.pe_dma", "sip1.cube2.pe37"}));
  EXPECT_EQ(group_of("sip1.cube2.xbar"),
            (std::pair<std::string, std::string_view>{"cube.xbar", "sip1.cube2"}));
  EXPECT_EQ(group_of("sip1.ucie0"),
            (std::pair<std::string, std::string_view>{"sip1.ucie0", "sip1.ucie0"}));
}

TEST(PeGroups, ASpreadKeepsTheFirstPeWithTheLeastAndTheMost) {
  const std::vector<std::pair<uint64_t, std::string_view>> v = {
    {7, "a"}, {3, "b"}, {9, "c"}, {3, "d"}, {9, "e"}};
  const spread s = spread_of(v);
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.min, 3u);
  EXPECT_EQ(s.min_at, "b");
  EXPECT_EQ(s.median, 7u); // 3 3 [7] 9 9
  EXPECT_EQ(s.max, 9u);
  EXPECT_EQ(s.max_at, "c");
  EXPECT_EQ(s.total, 31u);
  EXPECT_EQ(spread_of({}).count, 0u);
}

TEST(PeGroups, SeventeenPesGetOneLinePerCommandAndUnitAndPerPeGivesEach) {
  // As in the launch test (host latency 100 ns): PE k issues at 106 + k/4
  // ns; the 17 PEs of cube 0 share its HBM, so PE k's single tile is done at
  // 3998 + 64·k ns (the --per-pe lines below). Latency then runs from 3892
  // (PE 0) to 4912 ns (PE 16), median PE 8's 4402; the last done is 5022.
  const std::string run = "run --topology " + test::source_dir() +
                          "/config/scale/1sip_4cube_64pe.yaml --M 128 --K 128 --N 128 --pes 17 "
                          "--set cube.m_cpu.host_latency_ns=100 --quiet";
  const auto grouped = run_kernbench(run);
  ASSERT_EQ(grouped.exit_code, 0) << grouped.err;
  EXPECT_THAT(grouped.out, HasSubstr("command latency (PE_CPU issue -> command-done notice; "
                                     "start: PE_SCHEDULER released its first tile), "
                                     "over 17 PEs (--per-pe: each)\n"
                                     "  cmd 1   17 PEs  1 tiles  latency min 3892 ns "
                                     "(sip0.cube0.pe0)  median 4402 ns  max 4912 ns "
                                     "(sip0.cube0.pe16)  last done 5022 ns (sip0.cube0.pe16)  "
                                     "gemm 128x128x128 f16 tiles 128x128x128\n"));
  // One GEMM tile of 2112 ns on each of the 17 PEs.
  EXPECT_THAT(grouped.out,
              HasSubstr("  pe.pe_gemm/gemm              x17    busy           2112 ns"));
  EXPECT_THAT(grouped.out, HasSubstr("  cmd 1   17 PEs  body   1 tiles  II        2112 ns  "
                                     "simulated n/a (< 3 bodies)\n"));
  EXPECT_THAT(grouped.out,
              HasSubstr("  pe_scheduler x17    stall all 0 ns  over 17 tiles in all\n"));
  EXPECT_THAT(grouped.out,
              HasSubstr("  cube.noc                 -> pe.pe_cpu                    x17"));
  EXPECT_THAT(grouped.out, Not(HasSubstr("sip0.cube0.pe3     cmd 1")));

  const auto each = run_kernbench(run + " --per-pe");
  ASSERT_EQ(each.exit_code, 0) << each.err;
  for (int k = 0; k <= 16; ++k) {
    const int done_ps = (3998 + 64 * k) * 1000;
    EXPECT_THAT(each.out, HasSubstr(fmt::format("  {:<18} cmd 1        1 tiles  issue {:>12} ns  "
                                                "start {:>12} ns  done {:>12} ns",
                                                fmt::format("sip0.cube0.pe{}", k),
                                                summary_ns(106'000 + 250 * k),
                                                summary_ns(107'000 + 250 * k),
                                                summary_ns(static_cast<uint64_t>(done_ps)))))
      << k;
  }
  EXPECT_THAT(each.out, Not(HasSubstr("over 17 PEs")));
}

} // namespace
} // namespace kb
