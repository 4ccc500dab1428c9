// The conservative protocol's bounds without actors (runtime/engine/
// promise_book): each figure below is derived by hand from ADR-0001 (a
// promise is the earliest local event plus the cut's lookahead), ADR-0014
// (it leaves out its addressee's own promise; unacknowledged events bound
// the sender by their reply) and ADR-0029 (promises on demand).

#include "runtime/engine/promise_book.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

SimTime at(uint64_t p) { return ps(p); }
const SimTime inf = SimTime::infinity();

std::vector<std::vector<sim_event>> no_events(uint32_t shards) {
  return std::vector<std::vector<sim_event>>(shards);
}

sim_event event_at(uint64_t p) {
  sim_event e;
  e.t = at(p);
  return e;
}

struct sent {
  uint32_t to;
  uint64_t time;
  bool need;
  uint64_t acked;
  friend bool operator==(const sent&, const sent&) = default;
};

std::vector<sent> promises(promise_book& b, uint64_t local, uint64_t end,
                           const std::vector<std::vector<sim_event>>& out) {
  std::vector<sent> r;
  for (const auto& p : b.promises(at(local), at(end), out))
    r.push_back({p.to, p.time.ps(), p.need, p.acked});
  return r;
}

// Shard 0 of two; promises to shard 1 add 10 ps, replies from it take 7 ps.
promise_book two_shards() { return promise_book(0, 2, {inf, at(10)}, {inf, at(7)}); }

TEST(PromiseBook, ABlockedShardAsksOnceAndWithholdsSmallRises) {
  auto b = two_shards();
  EXPECT_EQ(b.promise_in_min().ps(), 0u); // nothing promised yet
  const auto out = no_events(2);
  // Local event at 100: promise 100 + 10 = 110, and shard 1's bound (0)
  // holds that event back, so it asks.
  EXPECT_EQ(promises(b, 100, 1000, out), (std::vector<sent>{{1, 110, true, 0}}));
  // 115 rose by less than a lookahead and nobody asked: withheld.
  EXPECT_TRUE(promises(b, 105, 1000, out).empty());
  // 130 is a whole lookahead above 110: sent, without asking again.
  EXPECT_EQ(promises(b, 120, 1000, out), (std::vector<sent>{{1, 130, false, 0}}));
}

TEST(PromiseBook, AShardThatAskedIsAnsweredAtTheNextRiseWithItsAcknowledgements) {
  auto b = two_shards();
  const auto out = no_events(2);
  (void)promises(b, 100, 1000, out); // 110 sent, asked
  // Shard 1 promises 200, sends 3 events and asks (it is blocked on us).
  b.received(1, at(200), 0, true, 3);
  EXPECT_TRUE(b.wanted(1));
  EXPECT_EQ(b.promise_in_min().ps(), 200u);
  // Local 101 gives 111, a rise of 1 ps over 110: answered because it was
  // asked for, with the 3 events acknowledged.
  EXPECT_EQ(promises(b, 101, 1000, out), (std::vector<sent>{{1, 111, false, 3}}));
  EXPECT_FALSE(b.wanted(1));
  // Answered: the next small rise is withheld again.
  EXPECT_TRUE(promises(b, 102, 1000, out).empty());
}

TEST(PromiseBook, AQuestionAloneIsNoAnswer) {
  auto b = two_shards();
  const auto out = no_events(2);
  EXPECT_EQ(promises(b, 100, 1000, out), (std::vector<sent>{{1, 110, true, 0}}));
  // Shard 1, blocked on us too, only asks: same promise (0), nothing new.
  b.received(1, at(0), 0, true, 0);
  EXPECT_TRUE(b.wanted(1));
  // Nothing rose, nothing to acknowledge: no batch (two shards blocked on
  // each other would otherwise ask each other forever), and no new
  // question either, since ours is still open.
  EXPECT_TRUE(promises(b, 100, 1000, out).empty());
}

TEST(PromiseBook, UnacknowledgedEventsBoundTheSenderByTheirReply) {
  auto b = two_shards();
  b.received(1, at(1000), 0, false, 0);
  EXPECT_EQ(b.bound_from(1).ps(), 1000u);
  auto out = no_events(2);
  out[1] = {event_at(300), event_at(350)};
  // The events go with a promise of 300 + 10; shard 1 may answer the one
  // at 300 from 300 + 7 on, whatever it promised (its promise left ours out).
  EXPECT_EQ(promises(b, 300, 5000, out), (std::vector<sent>{{1, 310, false, 0}}));
  EXPECT_EQ(b.bound_from(1).ps(), 307u);
  EXPECT_EQ(b.promise_in_min().ps(), 307u);
  // Acknowledging one of the two events is not enough...
  b.received(1, at(1000), 1, false, 0);
  EXPECT_EQ(b.bound_from(1).ps(), 307u);
  // ... both is.
  b.received(1, at(1000), 2, false, 0);
  EXPECT_EQ(b.bound_from(1).ps(), 1000u);
}

TEST(PromiseBook, APromiseLeavesOutItsAddresseesOwnBound) {
  // Shard 0 of three: promises add 10 ps, replies take 5 ps.
  promise_book b(0, 3, {inf, at(10), at(10)}, {inf, at(5), at(5)});
  b.received(1, at(300), 0, false, 0);
  b.received(2, at(800), 0, false, 0);
  EXPECT_EQ(b.promise_in_min().ps(), 300u);
  EXPECT_EQ(b.promise_in_min(1).ps(), 800u);
  // Local event at 1000. To shard 1: min(1000, shard 2's 800) + 10; to
  // shard 2: min(1000, shard 1's 300) + 10. Both hold the event back: ask.
  const auto out = no_events(3);
  EXPECT_EQ(promises(b, 1000, 5000, out),
            (std::vector<sent>{{1, 810, true, 0}, {2, 310, true, 0}}));
}

TEST(PromiseBook, AnLbtsJumpIsAFloorThatALatePromiseCannotLower) {
  auto b = two_shards();
  b.apply_jump(at(500)); // nothing anywhere before 500: nothing from 1 before 507
  EXPECT_EQ(b.bound_from(1).ps(), 507u);
  b.received(1, at(100), 0, false, 0); // sent before the jump, arrived after
  EXPECT_EQ(b.bound_from(1).ps(), 507u);
  b.received(1, at(900), 0, false, 0);
  EXPECT_EQ(b.bound_from(1).ps(), 900u);
}

TEST(PromiseBook, AtTheEndAShardAsksOnlyWhileABoundIsBelowTheEnd) {
  auto b = two_shards();
  b.received(1, at(400), 0, false, 0);
  const auto out = no_events(2);
  // No local event: the promise is infinite, and shard 1's 400 holds back
  // the end (1000), so this shard asks.
  auto p = b.promises(inf, at(1000), out);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_TRUE(p[0].time.is_infinite());
  EXPECT_TRUE(p[0].need);
  EXPECT_TRUE(b.promises(inf, at(1000), out).empty()); // asked already
  b.received(1, at(1000), 0, false, 0);                 // its answer
  EXPECT_TRUE(b.promises(inf, at(1000), out).empty()); // nothing holds the end
}

TEST(PromiseBook, ASingleShardPromisesNothing) {
  promise_book b(0, 1, {}, {});
  EXPECT_TRUE(b.promise_in_min().is_infinite());
  EXPECT_TRUE(b.promises(at(5), at(10), no_events(1)).empty());
}

} // namespace
} // namespace kb
