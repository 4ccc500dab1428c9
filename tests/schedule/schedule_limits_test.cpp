// Latencies whose sums pass 32 bits: a problem whose II or schedule length
// cannot be represented (over 2^31 - 1 cycles) is refused by name before any
// generator runs; one just under the limit is scheduled with its true MII.

#include "tests/schedule/problem_builder.hpp"

#include "runtime/schedule/mii.hpp"
#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/validator.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kb::sched {
namespace {

using test::problem_builder;

/// Ten ops in a ring, each edge of `latency`, closed by a loop-carried edge
/// of distance 1: RecMII is 10 × latency. Each op uses the one pool for a
/// cycle, so the automatic strategy picks the cost-based generator.
problem ring_of_ten(int64_t latency) {
  problem_builder b;
  b.pool("alu", 1);
  const char* names[] = {"o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9"};
  for (const char* n : names)
    b.op(n, latency, {{"alu", 1}});
  for (int i = 0; i < 10; ++i)
    b.edge(names[i], names[(i + 1) % 10], i == 9 ? 1 : 0);
  return b.build();
}

std::string error_of(const problem& p, strategy s) {
  try {
    schedule_options o;
    o.requested = s;
    generate_schedule(p, o);
  } catch (const problem_error& e) {
    return e.what();
  }
  return "<no error thrown>";
}

TEST(schedule_limits, serial_length_sums_in_64_bits) {
  EXPECT_EQ(serial_length(ring_of_ten(2147483647)), 21474836470u);
  EXPECT_EQ(serial_length(ring_of_ten(0)), 10u); // each op at least one cycle
}

TEST(schedule_limits, a_recurrence_past_2_31_cycles_is_refused_by_every_strategy) {
  const problem p = ring_of_ten(2147483647); // RecMII 21,474,836,470
  const std::string expected =
    "the loop body takes 21474836470 cycles run op after op (each op for the longest of 1, "
    "its reservation and its outgoing latencies), over the limit of 2147483647 cycles "
    "(2^31 - 1) for an II or a schedule length";
  for (strategy s : {strategy::automatic, strategy::serial, strategy::cost})
    EXPECT_EQ(error_of(p, s), expected) << to_string(s);
  EXPECT_THROW(check_problem(p), problem_error);
}

TEST(schedule_limits, one_cycle_over_the_limit_is_refused) {
  problem p = ring_of_ten(214748364); // 2,147,483,640 cycles
  p.edges[0].latency += 8;            // 2,147,483,648
  EXPECT_NE(error_of(p, strategy::serial).find("takes 2147483648 cycles"), std::string::npos);
}

TEST(schedule_limits, a_recurrence_just_under_the_limit_has_its_true_mii) {
  const problem p = ring_of_ten(214748364); // RecMII 2,147,483,640
  schedule_options o;
  o.requested = strategy::serial;
  const auto a = generate_schedule(p, o);
  ASSERT_TRUE(a.success);
  const auto v = validate_schedule(p, a);
  EXPECT_TRUE(v.ok);
  ASSERT_TRUE(v.rec_mii.has_value());
  EXPECT_EQ(*v.rec_mii, 2147483640u);
  ASSERT_TRUE(v.mii.has_value());
  EXPECT_EQ(*v.mii, 2147483640u);
  EXPECT_EQ(serial_ii_bound(p), 2147483640u);
  const dep_graph g(p);
  EXPECT_EQ(compute_mii(p, g).rec_mii, 2147483640u);
}

} // namespace
} // namespace kb::sched
