// A run's results gathered without actors (runtime/engine/result_gather):
// how shards' parts add up, which error wins, and that a lost shard is
// never a complete-looking result.

#include "runtime/engine/result_gather.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

node_summary summary(node_id id) {
  node_summary s;
  s.node = id;
  return s;
}

run_result part(std::vector<node_id> ids, uint64_t windows, uint64_t wall_ns,
                std::string error = {}) {
  run_result r;
  for (node_id id : ids)
    r.nodes.push_back(summary(id));
  r.hub.windows = windows;
  r.hub.peer_null_msgs = 2;
  r.hub.run_wall_ns = wall_ns;
  r.error = std::move(error);
  return r;
}

std::vector<node_id> ids_of(const run_result& r) {
  std::vector<node_id> ids;
  for (const auto& n : r.nodes)
    ids.push_back(n.node);
  return ids;
}

TEST(ResultGather, PartsAddUpAndNodesComeOutInIdOrder) {
  result_gather g;
  g.add(summary(4));
  g.add(summary(0));
  hub_stats own;
  own.windows = 10;
  own.run_wall_ns = 500;
  g.close_own(own, false, "");
  g.require_all();
  auto p2 = part({5, 1}, 7, 900);
  auto p1 = part({3, 2}, 1, 300);
  g.merge(p2, 2);
  g.merge(p1, 1);
  const run_result r = g.finish(3);
  EXPECT_EQ(ids_of(r), (std::vector<node_id>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(r.hub.windows, 18u);       // 10 + 7 + 1
  EXPECT_EQ(r.hub.peer_null_msgs, 4u); // 0 + 2 + 2
  EXPECT_EQ(r.hub.run_wall_ns, 900u);  // the longest
  EXPECT_EQ(r.hub.shards, 3u);
  EXPECT_TRUE(r.error.empty());
  EXPECT_FALSE(r.stopped);
}

TEST(ResultGather, TheFirstErrorWinsAndNamesItsShard) {
  result_gather g;
  g.close_own({}, false, "");
  auto a = part({1}, 0, 0, "deadlock at 5 ps");
  auto b = part({2}, 0, 0, "later error");
  g.merge(a, 2);
  g.merge(b, 1);
  EXPECT_EQ(g.finish(3).error, "shard 2: deadlock at 5 ps");

  result_gather own_first;
  own_first.close_own({}, false, "own error");
  auto c = part({1}, 0, 0, "part error");
  own_first.merge(c, 1);
  EXPECT_EQ(own_first.finish(2).error, "own error");
}

TEST(ResultGather, ALostShardIsTheRunsErrorNamingTheLowest) {
  result_gather g;
  g.lost(3);
  g.lost(1);
  g.close_own({}, false, "");
  EXPECT_TRUE(g.result().error.empty()); // not until shard 0 requires all
  g.require_all();
  EXPECT_EQ(g.result().error,
            "shard 1 stopped before handing in its results (its process ended?); "
            "the run's results are incomplete");

  // A run that already failed keeps its own error.
  result_gather failed;
  failed.lost(2);
  failed.close_own({}, false, "shard 2 stopped (killed) while shard 0 still depended on it");
  failed.require_all();
  EXPECT_EQ(failed.result().error,
            "shard 2 stopped (killed) while shard 0 still depended on it");
}

TEST(ResultGather, AStopAnywhereStopsTheRun) {
  result_gather g;
  g.close_own({}, false, "");
  auto p = part({1}, 0, 0);
  p.stopped = true;
  g.merge(p, 1);
  EXPECT_TRUE(g.finish(2).stopped);
}

} // namespace
} // namespace kb
