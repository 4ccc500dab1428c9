// A node's output links stored as runs: what at() and find() return, and
// when neighbouring links merge into one run.

#include "runtime/engine/route_table.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

constexpr uint16_t wire = route_table::no_state;

void expect_route(const route_table& t, uint32_t l, node_id dst, uint16_t lat,
                  uint16_t state) {
  const route_table::route r = t.at(l);
  EXPECT_EQ(r.dst, dst) << "link " << l;
  EXPECT_EQ(r.latency, lat) << "link " << l;
  EXPECT_EQ(r.state, state) << "link " << l;
}

// PHOLD's LP 3 of 8: links to 0,1,2 then 4,5,6,7 (itself skipped), all pure
// wires of one latency: two runs, [0..2] -> 0.., [3..6] -> 4...
TEST(RouteTable, AllToAllLpIsTwoRuns) {
  route_table t;
  for (node_id d = 0; d < 8; ++d)
    if (d != 3)
      t.add({d, 0, wire});
  ASSERT_EQ(t.size(), 7u);
  for (uint32_t l = 0; l < 7; ++l)
    expect_route(t, l, l < 3 ? l : l + 1, 0, wire);
  EXPECT_EQ(t.find(2), 2u);
  EXPECT_EQ(t.find(4), 3u);
  EXPECT_EQ(t.find(7), 6u);
  EXPECT_EQ(t.find(3), std::nullopt);
  EXPECT_EQ(t.find(8), std::nullopt);
}

// Stateful links never merge (each has its own credits and FIFO), nor do
// links of another latency or a gap in the destinations.
TEST(RouteTable, StatefulLatencyAndGapsBreakRuns) {
  route_table t;
  t.add({10, 0, wire});
  t.add({11, 0, wire}); // joins the first run
  t.add({12, 1, wire}); // other latency
  t.add({13, 1, 0});    // stateful
  t.add({14, 1, 1});    // stateful
  t.add({16, 1, wire}); // after a gap
  t.add({17, 1, wire}); // joins
  ASSERT_EQ(t.size(), 7u);
  expect_route(t, 0, 10, 0, wire);
  expect_route(t, 1, 11, 0, wire);
  expect_route(t, 2, 12, 1, wire);
  expect_route(t, 3, 13, 1, 0);
  expect_route(t, 4, 14, 1, 1);
  expect_route(t, 5, 16, 1, wire);
  expect_route(t, 6, 17, 1, wire);
  EXPECT_EQ(t.find(15), std::nullopt);
  EXPECT_EQ(t.find(17), 6u);
}

// Two links to one node: find() gives the first.
TEST(RouteTable, FindGivesTheFirstLinkToANode) {
  route_table t;
  t.add({5, 0, 0});
  t.add({5, 1, 1});
  EXPECT_EQ(t.find(5), 0u);
  expect_route(t, 1, 5, 1, 1);
}

} // namespace
} // namespace kb
