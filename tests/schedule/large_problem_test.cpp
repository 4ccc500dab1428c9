// Issue 15 item 5 / issue 9: the schedule bounds scale with the edges, not
// with the cube of the ops. A 10,000-op problem gets its answer (MII, a
// serial order, a modulo schedule at MII) in well under a second each; the
// test pins the answer, the report of issue 9 times it.

#include "runtime/schedule/dep_graph.hpp"
#include "runtime/schedule/mii.hpp"
#include "runtime/schedule/random_problem.hpp"
#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/validator.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kb::sched {
namespace {

constexpr uint32_t n = 10'000;

/// A ring of n ops, each 2 cycles of latency and one cycle of `alu`
/// (capacity 4), chained at distance 0 and closed by op n−1 → op 0 at
/// distance 1; every 100 ops also close a short loop (op i+99 → op i at
/// distance 2). RecMII = 2·n / 1 = 20,000 (the short loops need only
/// 2·100 / 2 = 100); ResMII = ⌈n / 4⌉ = 2,500.
problem ring() {
  problem p;
  p.source = "ring";
  p.pools.push_back({"alu", 4});
  for (uint32_t i = 0; i < n; ++i) {
    op_spec o;
    o.name = "op" + std::to_string(i);
    o.latency = 2;
    o.reservation = {{pool_use{0, 1}}};
    p.ops.push_back(std::move(o));
  }
  auto edge = [&](uint32_t from, uint32_t to, uint32_t distance) {
    p.edges.push_back({from, to, 2, distance, 0});
  };
  for (uint32_t i = 0; i + 1 < n; ++i)
    edge(i, i + 1, 0);
  edge(n - 1, 0, 1);
  for (uint32_t i = 0; i + 99 < n; i += 100)
    edge(i + 99, i, 2);
  return p;
}

TEST(large_problem, mii_of_a_10000_op_ring) {
  const problem p = ring();
  const dep_graph g(p);
  const auto b = compute_mii(p, g);
  EXPECT_EQ(b.res_mii, 2'500u);
  EXPECT_EQ(b.rec_mii, 20'000u);
  EXPECT_EQ(b.mii, 20'000u);
}

TEST(large_problem, serial_orders_10000_ops_without_computing_recmii) {
  schedule_options o;
  o.requested = strategy::serial;
  const auto a = generate_schedule(ring(), o);
  ASSERT_TRUE(a.success);
  for (uint32_t i = 0; i < n; i += 997)
    EXPECT_EQ(a.seats[i].order, i);
  EXPECT_EQ(a.seats[n - 1].order, n - 1);
  EXPECT_EQ(a.res_mii, 2'500u);
  EXPECT_FALSE(a.rec_mii); // serial has no II: RecMII is not computed
  EXPECT_FALSE(a.mii);
}

TEST(large_problem, modulo_schedules_the_10000_op_ring_at_mii) {
  schedule_options o;
  o.requested = strategy::cost;
  const problem p = ring();
  const auto a = generate_schedule(p, o);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.ii, 20'000u);
  EXPECT_EQ(a.stats.ii_attempts, 1u);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(large_problem, mii_of_a_random_10000_op_loop_agrees_with_the_validator) {
  const problem p = random_problem(7, {.min_ops = n, .max_ops = n});
  const dep_graph g(p);
  const auto b = compute_mii(p, g);
  const auto v = validate_schedule(p, generate_serial(p));
  EXPECT_EQ(b.res_mii, v.res_mii);
  EXPECT_EQ(b.rec_mii, v.rec_mii);
}

} // namespace
} // namespace kb::sched
