// Issue 36 / issue 31 item 5: `--partition auto` chooses what a shard never
// splits from the cut links' lookahead and the shards each choice could run
// (docs/adr/0029-demand-driven-promises.md, "The cut from the lookahead").
// Hand-derived from the shipped machines: the 1,024-PE machine's SIPs are
// joined by 500 ns links and its cubes by 10 ns UCIe links, so whole SIPs
// win unless whole cubes would run more than 50 times the shards.

#include "runtime/machine/partition_choice.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(partition_choice, the_1024_pe_machine_is_cut_between_its_sips_on_any_cores) {
  const topology_spec m = test::config_machine("scale/4sip_4cube_64pe.yaml");
  // 16 lanes: 4 SIP shards against 16 cube shards, 4x the shards for a
  // 50x shorter lookahead (500 ns / 10 ns).
  for (std::size_t lanes : {1u, 2u, 4u, 8u, 16u, 64u}) {
    const partition_choice c = choose_partition(m, lanes, 1, true);
    EXPECT_EQ(c.grouping, "sip") << lanes << ": " << c.why;
  }
  const partition_choice c16 = choose_partition(m, 16, 1, true);
  EXPECT_EQ(c16.why, "the links between SIPs give 500 ns of lookahead, the cube cut 10 ns; 4 "
                     "shard(s) of whole SIPs against 16 of whole cubes per process");
  // Two processes of 8 lanes: 2 SIPs each, 8 cubes each.
  EXPECT_EQ(choose_partition(m, 8, 2, true).why,
            "the links between SIPs give 500 ns of lookahead, the cube cut 10 ns; 2 shard(s) of "
            "whole SIPs against 8 of whole cubes per process");
}

TEST(partition_choice, a_short_link_between_sips_keeps_the_cube_cut) {
  topology_spec m = test::config_machine("scale/4sip_4cube_64pe.yaml");
  // The SIPs' links as short as 20 ns: 2x the UCIe lookahead does not pay
  // for 16 / 4 = 4x fewer shards on 16 lanes; on 2 lanes both run 2 shards.
  for (link_spec& l : m.links)
    if (l.latency == SimTime{500'000})
      l.latency = SimTime{20'000};
  EXPECT_EQ(choose_partition(m, 16, 1, true).grouping, "cube");
  EXPECT_EQ(choose_partition(m, 8, 1, true).grouping, "sip"); // 2x lookahead, 8 / 4 = 2x shards
  EXPECT_EQ(choose_partition(m, 2, 1, true).grouping, "sip");
}

TEST(partition_choice, one_sip_or_split_sips_keep_whole_cubes) {
  const topology_spec one = test::config_machine("topology.yaml");
  EXPECT_EQ(choose_partition(one, 16, 1, true).grouping, "cube");
  EXPECT_EQ(choose_partition(one, 16, 1, true).why, "one SIP");
  const topology_spec m = test::config_machine("scale/4sip_4cube_64pe.yaml");
  const partition_choice split = choose_partition(m, 2, 8, false);
  EXPECT_EQ(split.grouping, "cube");
  EXPECT_EQ(split.why, "the processes hold parts of SIPs");
}

TEST(partition_choice, group_prefix_is_the_partition_key) {
  EXPECT_EQ(group_prefix("sip0.cube1.pe3.pe_gemm", 1), "sip0");
  EXPECT_EQ(group_prefix("sip0.cube1.pe3.pe_gemm", 2), "sip0.cube1");
  EXPECT_EQ(group_prefix("sip0.cube1.pe3.pe_gemm", 3), "sip0.cube1.pe3");
  EXPECT_EQ(group_prefix("sip0.cube1.hbm", 3), "sip0.cube1.hbm");
  EXPECT_EQ(group_prefix("host", 2), "host");
}

TEST(partition_choice, the_default_runs_the_same_results_and_bad_names_are_refused) {
  const std::string big = "run --quiet --topology " + test::source_dir() +
                          "/config/scale/4sip_4cube_64pe.yaml --pes all --M 128 --K 128 --N 128"
                          " --placement remote-sip";
  const std::string dir = test::temp_dir("partition_auto");
  const auto a = test::run_kernbench(big + " --threads 2 --json " + dir + "/auto.json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto c = test::run_kernbench(big + " --threads 2 --partition cube --json " + dir +
                                     "/cube.json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(test::json_results(test::slurp(dir + "/auto.json")),
            test::json_results(test::slurp(dir + "/cube.json")));
  const auto bad = test::run_kernbench("run --quiet --partition wafer");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("partition 'wafer': expected auto, cube, sip or pe"), std::string::npos)
    << bad.err;
}

} // namespace
} // namespace kb
