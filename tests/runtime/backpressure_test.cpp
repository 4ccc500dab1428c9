// Virtual-time backpressure: a fast producer feeds a slow consumer through a
// queue of depth 2. All times below are derived by hand from the credit rule
// (DESIGN §3) and asserted exactly.

#include "runtime/engine/simulation.hpp"
#include "tests/runtime/test_nodes.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::consumer;
using test::producer;

run_result run_pipe(uint32_t depth, SimTime service, size_t threads) {
  simulation sim;
  sim.add_node("consumer", make_node_factory<consumer>(service));
  sim.add_node("producer", make_node_factory<producer>(6u, ns(1)));
  sim.add_link("producer", "consumer", ns(1), std::nullopt, depth);
  run_options o;
  o.threads = threads;
  return sim.run(o);
}

std::vector<uint64_t> in_ns(std::vector<uint64_t> v) {
  for (auto& x : v)
    x /= 1000;
  return v;
}

// Producer tries a send every 1 ns after the previous one left; the link has
// 1 ns latency and 2 credits; the consumer serves each message for 10 ns.
//   t=0  m0 leaves (credits 2->1), arrives 1; consumer takes it at 1, so a
//        credit is back at the producer at 2.
//   t=1  m1 leaves (1->0), arrives 2, waits in the queue (consumer busy).
//   t=2  the credit (key: consumer's id sorts before producer's) is handled
//        before the producer's timer: credits 0->1, m2 leaves at 2 (->0).
//   t=3  m3: no credit, the producer blocks.
//   t=11 consumer finishes m0, takes m1: credit arrives 12, m3 leaves at 12.
//   t=13 m4 blocks; consumer takes m2 at 21, credit at 22, m4 leaves at 22.
//   t=23 m5 blocks; consumer takes m3 at 31, credit at 32, m5 leaves at 32.
// Consumer takes: 1, 11, 21, 31, 41, 51 (one every 10 ns once backed up).
TEST(Backpressure, ProducerBlocksExactlyWhenCreditsRunOut) {
  run_result r = run_pipe(2, ns(10), 1);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(in_ns(series_of(r, "producer", "attempt")),
            (std::vector<uint64_t>{0, 1, 2, 3, 13, 23}));
  EXPECT_EQ(in_ns(series_of(r, "producer", "left")),
            (std::vector<uint64_t>{0, 1, 2, 12, 22, 32}));
  EXPECT_EQ(in_ns(series_of(r, "consumer", "take")),
            (std::vector<uint64_t>{1, 11, 21, 31, 41, 51}));
}

// Depth 1: m0 leaves at 0 and is taken at 1 (credit back at 2); m1 is tried
// at 1 and blocks until 2; it arrives 3 and waits; the consumer takes it at
// 11 (credit at 12), so m2 (tried at 3) leaves at 12, and so on: departures
// 0, 2, 12, 22, 32, 42; takes 1, 11, 21, 31, 41, 51.
TEST(Backpressure, DepthOneAllowsOneMessageInFlight) {
  run_result r = run_pipe(1, ns(10), 1);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(in_ns(series_of(r, "producer", "left")),
            (std::vector<uint64_t>{0, 2, 12, 22, 32, 42}));
  EXPECT_EQ(in_ns(series_of(r, "consumer", "take")),
            (std::vector<uint64_t>{1, 11, 21, 31, 41, 51}));
}

// A consumer faster than the producer never withholds a credit: every send
// leaves at its attempt time (0..5 ns) and is taken on arrival (1..6 ns).
TEST(Backpressure, FastConsumerNeverBlocksProducer) {
  run_result r = run_pipe(2, ps(500), 1);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(in_ns(series_of(r, "producer", "left")),
            (std::vector<uint64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(series_of(r, "producer", "left"), series_of(r, "producer", "attempt"));
  EXPECT_EQ(in_ns(series_of(r, "consumer", "take")),
            (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Backpressure, SameTimesOnAnyThreadCount) {
  run_result one = run_pipe(2, ns(10), 1);
  for (size_t threads : {2u, 4u}) {
    run_result r = run_pipe(2, ns(10), threads);
    EXPECT_EQ(series_of(r, "producer", "left"), series_of(one, "producer", "left"));
    EXPECT_EQ(series_of(r, "consumer", "take"), series_of(one, "consumer", "take"));
  }
}

} // namespace
} // namespace kb
