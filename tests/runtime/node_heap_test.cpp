// The shard loop's heap of nodes (runtime/engine/node_heap): the top is the
// node with the smallest key whatever the order of inserts, lowered keys,
// replaced tops and removals; second_time is the next node's time.

#include "runtime/engine/node_heap.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace kb {
namespace {

TEST(NodeHeap, TopIsTheSmallestKeyAndSecondTimeTheNextNodes) {
  node_heap h(8);
  EXPECT_TRUE(h.empty());
  h.insert(3, {ns(2), 1, 0});
  EXPECT_EQ(h.second_time(), SimTime::infinity());
  h.insert(5, {ns(1), 7, 4});
  h.insert(1, {ns(1), 7, 3}); // same time and sender: the sequence decides
  h.insert(6, {ns(1), 2, 9}); // same time: the sender decides
  EXPECT_EQ(h.top(), 6u);
  EXPECT_EQ(h.top_time(), ns(1));
  EXPECT_EQ(h.second_time(), ns(1));
  h.lower(3, {ps(10), 0, 0});
  EXPECT_EQ(h.top(), 3u);
  h.lower(6, {ns(5), 0, 0}); // not below its key: unchanged
  h.replace_top({ns(9), 0, 0});
  EXPECT_EQ(h.top(), 6u);
  h.pop_top();
  EXPECT_FALSE(h.contains(6));
  EXPECT_EQ(h.top(), 1u);
  h.pop_top();
  EXPECT_EQ(h.top(), 5u);
  EXPECT_EQ(h.second_time(), ns(9));
  h.pop_top();
  EXPECT_EQ(h.top(), 3u);
  h.pop_top();
  EXPECT_TRUE(h.empty());
}

TEST(NodeHeap, RandomOperationsAgreeWithASortedMap) {
  // As a shard loop uses it: the top's key replaced by a later one or the
  // top removed, other nodes entered or lowered; against a map by key.
  constexpr node_id nodes = 300;
  node_heap h(nodes);
  std::map<event_key, node_id> ref;
  std::vector<event_key> key_of(nodes);
  std::mt19937_64 next(20261125); // the same sequence on every platform
  uint64_t seq = 0;
  SimTime now = SimTime::zero();
  auto key_after = [&](SimTime t) {
    return event_key{t + ps(next() % 40), static_cast<node_id>(next() % 5), seq++};
  };
  for (int step = 0; step < 50000; ++step) {
    const node_id n = static_cast<node_id>(next() % nodes);
    if (!h.contains(n)) {
      key_of[n] = key_after(now);
      ref.emplace(key_of[n], n);
      h.insert(n, key_of[n]);
    } else if (const event_key k = key_after(now); k < key_of[n]) {
      ref.erase(key_of[n]);
      key_of[n] = k;
      ref.emplace(k, n);
      h.lower(n, k);
    }
    ASSERT_EQ(h.size(), ref.size());
    const auto first = ref.begin();
    ASSERT_EQ(h.top(), first->second);
    ASSERT_EQ(h.top_time(), first->first.t);
    ASSERT_EQ(h.second_time(),
              ref.size() > 1 ? std::next(first)->first.t : SimTime::infinity());
    now = first->first.t;
    const node_id top = first->second;
    ref.erase(first);
    if (next() % 3 == 0) {
      h.pop_top();
    } else {
      key_of[top] = key_after(now);
      ref.emplace(key_of[top], top);
      h.replace_top(key_of[top]);
    }
  }
}

} // namespace
} // namespace kb
