// Mailbox delivery's windows without actors (runtime/engine/window_book):
// which nodes a window wakes, with which held events, and when a node
// leaves the live list (docs/adr/0001-synchronisation.md).

#include "runtime/engine/window_book.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

sim_event event(node_id dst, uint64_t t, uint64_t arg0) {
  sim_event e;
  e.dst = dst;
  e.t = ps(t);
  e.arg0 = arg0;
  return e;
}

std::vector<node_id> woken(window_book& w, uint64_t until) {
  const auto s = w.wake(ps(until));
  return {s.begin(), s.end()};
}

TEST(WindowBook, AWindowWakesTheNodesWithSomethingBeforeItsEnd) {
  window_book w(4);
  EXPECT_TRUE(w.local_min().is_infinite()); // nothing pending
  w.reported(2, ps(300));  // node 2's own next event
  w.hold(event(1, 150, 7)); // an event for node 1
  w.hold(event(3, 500, 8));
  EXPECT_EQ(w.local_min().ps(), 150u);
  // A window to 300 wakes node 1 only: node 2's event at 300 is not before it.
  EXPECT_EQ(woken(w, 300), (std::vector<node_id>{1}));
  const auto got = w.take(1, {});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].arg0, 7u);
  // To 600: node 2 (live since its report) and node 3, in the order they
  // became live; node 1 stays live until it reports.
  EXPECT_EQ(woken(w, 600), (std::vector<node_id>{2, 3}));
  EXPECT_EQ(w.take(3, {}).size(), 1u);
}

TEST(WindowBook, ANodeWithNothingPendingLeavesTheLiveList) {
  window_book w(3);
  w.hold(event(0, 10, 1));
  EXPECT_EQ(woken(w, 20), (std::vector<node_id>{0}));
  (void)w.take(0, {});
  w.reported(0, SimTime::infinity()); // handled, nothing more
  EXPECT_TRUE(w.local_min().is_infinite());
  EXPECT_TRUE(woken(w, 1000).empty());
  // Idle, it was dropped: an event for it makes it live again, once.
  w.hold(event(0, 40, 2));
  w.hold(event(0, 30, 3));
  EXPECT_EQ(w.local_min().ps(), 30u);
  EXPECT_EQ(woken(w, 1000), (std::vector<node_id>{0}));
  const auto got = w.take(0, {});
  ASSERT_EQ(got.size(), 2u); // in the order they came
  EXPECT_EQ(got[0].arg0, 2u);
  EXPECT_EQ(got[1].arg0, 3u);
}

TEST(WindowBook, TakenStorageIsReplacedByTheSpare) {
  window_book w(1);
  std::vector<sim_event> spare;
  spare.reserve(64);
  const auto* storage = spare.data();
  w.hold(event(0, 5, 1));
  EXPECT_EQ(woken(w, 10), (std::vector<node_id>{0}));
  (void)w.take(0, std::move(spare));
  w.hold(event(0, 12, 2)); // lands in the spare's storage
  EXPECT_EQ(woken(w, 20), (std::vector<node_id>{0}));
  const auto got = w.take(0, {});
  EXPECT_EQ(got.data(), storage);
  EXPECT_EQ(got.capacity(), 64u);
}

} // namespace
} // namespace kb
