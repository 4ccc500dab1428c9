// Cyclic topologies: no deadlock with lookaheads from 1 ps to 1 us, within
// one shard and across shards (CMB promises around a cycle).

#include "runtime/engine/simulation.hpp"
#include "tests/runtime/test_nodes.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::ring_member;

struct ring_cfg {
  uint32_t size = 8;
  std::vector<SimTime> latencies{ps(1)}; // cycled over the links
  uint32_t tokens = 1;
  uint64_t hops = 0;
  SimTime end = SimTime::infinity();
  size_t threads = 1;
  uint32_t shards = 0;
  delivery_mode delivery = delivery_mode::direct;
};

run_result run_ring(const ring_cfg& c) {
  simulation sim;
  for (uint32_t i = 0; i < c.size; ++i)
    sim.add_node("r" + std::to_string(i),
                 make_node_factory<ring_member>(c.tokens, c.hops));
  for (uint32_t i = 0; i < c.size; ++i)
    sim.add_link("r" + std::to_string(i), "r" + std::to_string((i + 1) % c.size),
                 c.latencies[i % c.latencies.size()]);
  run_options o;
  o.end = c.end;
  o.threads = c.threads;
  o.shards = c.shards;
  o.exact_shards = true; // the protocol between shards, even on one thread
  o.delivery = c.delivery;
  return sim.run(o);
}

// One token, 1 ps per hop, run until 10,000 ps: it arrives at t = 1..9999
// (events at t < end are handled), at ring member t mod 8.
TEST(Ring, OnePicosecondLookaheadRunsToTheEnd) {
  ring_cfg c;
  c.end = ps(10000);
  run_result r = run_ring(c);
  ASSERT_EQ(r.error, "");
  uint64_t total = 0;
  for (uint32_t i = 0; i < 8; ++i) {
    const std::string n = "r" + std::to_string(i);
    const uint64_t expected = (9999 - (i == 0 ? 8 : i)) / 8 + 1;
    EXPECT_EQ(figure_of(r, n, "arrivals"), expected) << n;
    total += figure_of(r, n, "arrivals");
  }
  EXPECT_EQ(total, 9999u);
  EXPECT_EQ(figure_of(r, "r7", "last_ps"), 9999u); // 9999 mod 8 = 7
}

// Lookaheads from 1 ps to 1 us in one ring; tokens die after 100 hops, so
// the run ends when the machine is quiet. A lap takes 4 * (1 + 1e6) ps.
TEST(Ring, MixedLookaheadsRunToQuiescence) {
  ring_cfg c;
  c.size = 4;
  c.latencies = {ps(1), ns(1000)};
  c.tokens = 3;
  c.hops = 100;
  run_result r = run_ring(c);
  ASSERT_EQ(r.error, "");
  uint64_t total = 0;
  for (uint32_t i = 0; i < 4; ++i)
    total += figure_of(r, "r" + std::to_string(i), "arrivals");
  EXPECT_EQ(total, 300u);
  // Hop 100 of each token ends at r0 (100 = 25 laps of 4): 50 slow hops
  // of 1,000,000 ps and 50 fast hops of 1 ps.
  EXPECT_EQ(figure_of(r, "r0", "last_ps"), 50u * 1000000 + 50u);
}

// Split into shards, the ring's cycle crosses shard boundaries: the CMB
// promises must keep it moving, and the result must not change.
TEST(Ring, ShardsAroundACycleGiveTheSameResult) {
  ring_cfg base;
  base.latencies = {ps(1), ps(7), ns(1000)};
  base.tokens = 5;
  base.end = ns(20000);
  run_result one = run_ring(base);
  ASSERT_EQ(one.error, "");
  for (uint32_t shards : {2u, 4u, 8u}) {
    for (size_t threads : {1u, 2u, 4u}) {
      ring_cfg c = base;
      c.shards = shards;
      c.threads = threads;
      run_result r = run_ring(c);
      ASSERT_EQ(r.error, "");
      for (uint32_t i = 0; i < 8; ++i) {
        const std::string n = "r" + std::to_string(i);
        EXPECT_EQ(figure_of(r, n, "arrivals"), figure_of(one, n, "arrivals"))
          << n << " shards=" << shards << " threads=" << threads;
        EXPECT_EQ(figure_of(r, n, "checksum"), figure_of(one, n, "checksum"))
          << n << " shards=" << shards << " threads=" << threads;
      }
    }
  }
}

// A sparse cycle cut by 1 ps links: without an LBTS the shards' promises
// climb 2 ps per exchange across the 1 us gaps (~10^6 null messages per
// token lap); with it, a handful of reductions per gap.
TEST(Ring, LbtsKeepsNullMessagesFewOnSparseCycles) {
  ring_cfg c;
  c.latencies = {ns(1000), ps(1)}; // 4 shards of 2: every cut link is 1 ps
  c.tokens = 1;
  c.end = ns(20000);
  c.shards = 4;
  run_result r = run_ring(c);
  ASSERT_EQ(r.error, "");
  EXPECT_GT(r.hub.lbts_jumps, 0u);
  EXPECT_LT(r.hub.peer_null_msgs, 20000u);
}

// Without an end time, shards stop when the machine is quiet: the LBTS
// reduction finds every shard idle with nothing in transit (LBTS = inf).
TEST(Ring, ShardsDetectQuiescenceWithoutAnEndTime) {
  ring_cfg base;
  base.latencies = {ps(1), ns(1000)};
  base.tokens = 3;
  base.hops = 100;
  run_result one = run_ring(base);
  ASSERT_EQ(one.error, "");
  for (uint32_t shards : {2u, 4u}) {
    ring_cfg c = base;
    c.shards = shards;
    c.threads = 2;
    run_result r = run_ring(c);
    ASSERT_EQ(r.error, "") << shards;
    for (uint32_t i = 0; i < 8; ++i) {
      const std::string n = "r" + std::to_string(i);
      EXPECT_EQ(figure_of(r, n, "arrivals"), figure_of(one, n, "arrivals")) << n;
      EXPECT_EQ(figure_of(r, n, "last_ps"), figure_of(one, n, "last_ps")) << n;
    }
  }
}

// Quiescence is found by LBTS rounds, and a round may see a shard busy whose
// stuck notice then arrives during the round: it must start another round,
// not be dropped (with direct delivery this hung about 1 run in 4). Many
// repetitions in both delivery modes; a lost round is a hang (CTest timeout).
TEST(Ring, QuiescenceIsFoundEveryTimeInBothDeliveryModes) {
  ring_cfg base;
  base.latencies = {ps(1), ns(1000)};
  base.tokens = 3;
  base.hops = 100;
  const run_result one = run_ring(base);
  ASSERT_EQ(one.error, "");
  for (delivery_mode d : {delivery_mode::direct, delivery_mode::mailbox})
    for (int rep = 0; rep < 20; ++rep) {
      ring_cfg c = base;
      c.shards = rep % 2 ? 4 : 2;
      c.threads = 2;
      c.delivery = d;
      const run_result r = run_ring(c);
      ASSERT_EQ(r.error, "") << to_string(d) << " rep " << rep;
      EXPECT_EQ(figure_of(r, "r5", "arrivals"), figure_of(one, "r5", "arrivals"));
    }
}

} // namespace
} // namespace kb
