// Shards take runs of whole groups, balanced by node count (ADR-0009).

#include "runtime/engine/partition.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

/// Node i's group: the first segment of its name.
std::function<std::string(uint32_t)> first_segment(const std::vector<std::string>& names) {
  return [&names](uint32_t i) { return names[i].substr(0, names[i].find('.')); };
}

// Groups c0 (3 nodes), c1 (1), c2 (2), c3 (2): 8 nodes, 2 shards. Each group
// goes where its first node's position falls: c0 at 0 -> 0*2/8 = 0; c1 at 3
// -> 0; c2 at 4 -> 1; c3 at 6 -> 1.
TEST(Partition, ShardsTakeWholeGroupsBalancedByNodeCount) {
  const std::vector<std::string> names{"c0.a", "c0.b", "c0.c", "c1.a",
                                       "c2.a", "c2.b", "c3.a", "c3.b"};
  const shard_plan p = plan_shards(names, std::vector<uint32_t>(8, 0), 1, first_segment(names), 0, 2, true);
  EXPECT_EQ(p.per_process, 2u);
  EXPECT_EQ(p.owner, (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(Partition, NoMoreShardsThanGroups) {
  const std::vector<std::string> names{"c0.a", "c0.b", "c1.a", "c1.b"};
  const shard_plan p = plan_shards(names, std::vector<uint32_t>(4, 0), 1, first_segment(names), 0, 8, true);
  EXPECT_EQ(p.per_process, 2u);
  EXPECT_EQ(p.owner, (std::vector<uint32_t>{0, 0, 1, 1}));
}

TEST(Partition, UngroupedNodesWithoutAnEndTimeShareOneShard) {
  const std::vector<std::string> names{"a", "b", "c", "d"};
  EXPECT_EQ(plan_shards(names, std::vector<uint32_t>(4, 0), 1, nullptr, 0, 4, true).per_process, 1u);
  const shard_plan p = plan_shards(names, std::vector<uint32_t>(4, 0), 1, nullptr, 0, 4, false);
  EXPECT_EQ(p.per_process, 4u);
  EXPECT_EQ(p.owner, (std::vector<uint32_t>{0, 1, 2, 3}));
}

// Two processes, two shards each: process 1's shards are 2 and 3.
TEST(Partition, EachProcessCutsItsOwnNodes) {
  const std::vector<std::string> names{"c0.a", "c1.a", "c2.a", "c3.a"};
  const shard_plan p =
    plan_shards(names, std::vector<uint32_t>{0, 0, 1, 1}, 2, first_segment(names), 2, 1, true);
  EXPECT_EQ(p.owner, (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(Partition, AGroupSplitAcrossProcessesIsAnError) {
  const std::vector<std::string> names{"c0.a", "c0.b"};
  try {
    (void)plan_shards(names, std::vector<uint32_t>{0, 1}, 2, first_segment(names), 0, 1, true);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "nodes c0.a and c0.b share a group but not a process");
  }
}

} // namespace
} // namespace kb
