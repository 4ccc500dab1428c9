// The event FIFO (runtime/engine/event_fifo): first in, first out across
// the ring's wrap and its growth, and no buffer before the first push.

#include "runtime/engine/event_fifo.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <random>

namespace kb {
namespace {

sim_event numbered(uint64_t n) {
  sim_event ev;
  ev.seq = n;
  ev.arg0 = n * 3;
  return ev;
}

TEST(EventFifo, KeepsOrderAcrossWrapAndGrowth) {
  event_fifo f;
  EXPECT_TRUE(f.empty());
  // Push 3, pop 2, so that the head walks round the 4-slot ring, then grow
  // with the contents wrapped.
  uint64_t next_in = 0, next_out = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 3; ++i)
      f.push_back(numbered(next_in++));
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(f.front().seq, next_out);
      EXPECT_EQ(f.front().arg0, next_out * 3);
      f.pop_front();
      ++next_out;
    }
  }
  EXPECT_EQ(f.size(), 3u);
  for (; next_out < next_in; ++next_out) {
    EXPECT_EQ(f.front().seq, next_out);
    f.pop_front();
  }
  EXPECT_TRUE(f.empty());
}

TEST(EventFifo, MatchesADequeOnRandomOperations) {
  event_fifo f;
  std::deque<uint64_t> ref;
  std::mt19937_64 rng(7);
  uint64_t n = 0;
  for (int step = 0; step < 20000; ++step) {
    if (ref.empty() || rng() % 5 < 3) {
      f.push_back(numbered(n));
      ref.push_back(n++);
    } else {
      ASSERT_EQ(f.front().seq, ref.front());
      f.pop_front();
      ref.pop_front();
    }
    ASSERT_EQ(f.size(), ref.size());
  }
}

TEST(EventFifo, APayloadSurvivesGrowth) {
  event_fifo f;
  f.push_back(numbered(1));
  f.pop_front(); // the head is off slot 0, so growth has to unwrap
  sim_event ev = numbered(2);
  ev.body = message_body(std::make_unique<capnp::MallocMessageBuilder>());
  f.push_back(std::move(ev));
  for (uint64_t n = 3; n < 40; ++n)
    f.push_back(numbered(n));
  EXPECT_EQ(f.front().seq, 2u);
  EXPECT_FALSE(f.front().body.empty());
  sim_event out = std::move(f.front());
  f.pop_front();
  EXPECT_FALSE(out.body.empty());
  EXPECT_EQ(f.front().seq, 3u);
  EXPECT_TRUE(f.front().body.empty());
}

} // namespace
} // namespace kb
