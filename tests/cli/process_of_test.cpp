// Which process runs which node of a split run (`kernbench run --procs`,
// `--peers`, `--cut`): whole SIPs or whole cubes, in id order, balanced.

#include "runtime/run/machine_run.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kb {
namespace {

/// The process of every cube of a machine of `sips` x `cubes`.
std::vector<uint32_t> cube_owners(uint32_t ranks, uint32_t sips, uint32_t cubes, cut_unit u) {
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < sips; ++s)
    for (uint32_t c = 0; c < cubes; ++c)
      out.push_back(process_of(node_place{s, c, 0}, ranks, sips, cubes, u)); // a PE's unit
  return out;
}

TEST(process_of, automatic_takes_whole_sips_while_there_are_enough) {
  EXPECT_EQ(cube_owners(2, 4, 2, cut_unit::automatic),
            (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(cube_owners(3, 4, 2, cut_unit::automatic),
            (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 2, 2}));
}

TEST(process_of, automatic_takes_whole_cubes_beyond_one_process_per_sip) {
  EXPECT_EQ(cube_owners(3, 2, 2, cut_unit::automatic), (std::vector<uint32_t>{0, 0, 1, 2}));
  EXPECT_EQ(cube_owners(4, 2, 2, cut_unit::automatic), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(process_of, cube_by_hand_balances_cubes_even_when_sips_would_do) {
  // 3 processes on 4 SIPs x 2 cubes: by SIP 4/2/2 cubes, by cube 3/3/2.
  EXPECT_EQ(cube_owners(3, 4, 2, cut_unit::cube), (std::vector<uint32_t>{0, 0, 0, 1, 1, 1, 2, 2}));
}

TEST(process_of, sip_by_hand_never_splits_a_sip) {
  EXPECT_EQ(cube_owners(2, 2, 4, cut_unit::sip),
            (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(process_of, nodes_outside_any_sip_run_on_rank_0) {
  EXPECT_EQ(process_of(node_place{}, 4, 2, 2), 0u);        // a system node ("host")
  EXPECT_EQ(process_of(node_place{9, 0, {}}, 4, 2, 2), 0u); // "sip9.cube0.noc" of 2 SIPs
}

TEST(process_of, cut_names_parse_and_others_do_not) {
  EXPECT_EQ(parse_cut_unit("auto"), cut_unit::automatic);
  EXPECT_EQ(parse_cut_unit("sip"), cut_unit::sip);
  EXPECT_EQ(parse_cut_unit("cube"), cut_unit::cube);
  EXPECT_EQ(parse_cut_unit("pe"), std::nullopt);
}

} // namespace
} // namespace kb
