// A node's output links: what at() and find() return, for links added one
// at a time and for link classes stored as runs.

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
// wires of one latency: two runs, [0..2] -> 0.., [3..6] -> 4..., whether
// added as link classes or one link at a time.
TEST(RouteTable, AllToAllLpIsTwoRuns) {
  route_table t;
  t.add_run(0, 3, 0);
  t.add_run(4, 4, 0);
  route_table one_by_one;
  for (node_id d = 0; d < 8; ++d)
    if (d != 3)
      one_by_one.add({d, 0, wire});
  ASSERT_EQ(t.size(), 7u);
  ASSERT_EQ(one_by_one.size(), 7u);
  for (uint32_t l = 0; l < 7; ++l)
    expect_route(one_by_one, l, l < 3 ? l : l + 1, 0, wire);
  for (uint32_t l = 0; l < 7; ++l)
    expect_route(t, l, l < 3 ? l : l + 1, 0, wire);
  EXPECT_EQ(t.find(2), 2u);
  EXPECT_EQ(t.find(4), 3u);
  EXPECT_EQ(t.find(7), 6u);
  EXPECT_EQ(t.find(3), std::nullopt);
  EXPECT_EQ(t.find(8), std::nullopt);
}

// Links added one at a time, stateful (each has its own credits and FIFO)
// or not, of several latencies, with a gap in the destinations.
TEST(RouteTable, LinksOneAtATimeThenALinkClass) {
  route_table t;
  t.add({10, 0, wire});
  t.add({11, 0, wire});
  t.add({12, 1, wire}); // other latency
  t.add({13, 1, 0});    // stateful
  t.add({14, 1, 1});    // stateful
  t.add({16, 1, wire}); // after a gap
  t.add({17, 1, wire});
  t.add_run(18, 2, 1);  // a link class after them: links 7 and 8
  ASSERT_EQ(t.size(), 9u);
  expect_route(t, 0, 10, 0, wire);
  expect_route(t, 1, 11, 0, wire);
  expect_route(t, 2, 12, 1, wire);
  expect_route(t, 3, 13, 1, 0);
  expect_route(t, 4, 14, 1, 1);
  expect_route(t, 5, 16, 1, wire);
  expect_route(t, 6, 17, 1, wire);
  expect_route(t, 7, 18, 1, wire);
  expect_route(t, 8, 19, 1, wire);
  EXPECT_EQ(t.find(19), 8u);
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

// A node with few links keeps them inside itself; one more moves them all
// out. Every link reads back the same on both sides of that, and a link
// class joins the last entry wherever it lies.
TEST(RouteTable, TheFifthEntryMovesThemOut) {
  route_table t;
  for (node_id d = 0; d < 3; ++d)
    t.add({100 + 2 * d, static_cast<uint16_t>(d), static_cast<uint16_t>(d)});
  t.add({200, 0, wire});
  t.add_run(201, 3, 0); // joins link 3: still four entries, seven links
  ASSERT_EQ(t.size(), 7u);
  for (uint32_t l = 0; l < 3; ++l)
    expect_route(t, l, 100 + 2 * l, static_cast<uint16_t>(l), static_cast<uint16_t>(l));
  for (uint32_t l = 3; l < 7; ++l)
    expect_route(t, l, 197 + l, 0, wire);
  t.add({300, 1, 7}); // the fifth entry
  t.add_run(400, 2, 1);
  ASSERT_EQ(t.size(), 10u);
  for (uint32_t l = 0; l < 3; ++l)
    expect_route(t, l, 100 + 2 * l, static_cast<uint16_t>(l), static_cast<uint16_t>(l));
  for (uint32_t l = 3; l < 7; ++l)
    expect_route(t, l, 197 + l, 0, wire);
  expect_route(t, 7, 300, 1, 7);
  expect_route(t, 8, 400, 1, wire);
  expect_route(t, 9, 401, 1, wire);
  EXPECT_EQ(t.find(104), 2u);
  EXPECT_EQ(t.find(203), 6u);
  EXPECT_EQ(t.find(401), 9u);
  EXPECT_EQ(t.find(204), std::nullopt);
}

} // namespace
} // namespace kb
