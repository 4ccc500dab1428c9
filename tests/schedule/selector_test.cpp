// The selector predicate: its four rules in order, and explicit requests.

#include "tests/schedule/problem_builder.hpp"

#include "runtime/schedule/schedule.hpp"

#include <gtest/gtest.h>

namespace kb::sched {
namespace {

using test::problem_builder;

problem_builder ops(uint32_t n, bool with_resource) {
  problem_builder b;
  b.pool("alu", 1);
  for (uint32_t i = 0; i < n; ++i) {
    const std::string name = "op" + std::to_string(i);
    if (with_resource && i == n - 1)
      b.op(name, 1, {{"alu", 1}});
    else
      b.op(name, 1);
  }
  return b;
}

TEST(selector, force_serial_execution_wins_over_everything) {
  const auto s = select_strategy(ops(20, true).force_serial().build());
  EXPECT_EQ(s.chosen, strategy::serial);
  EXPECT_EQ(s.reason, "force_serial_execution is set");
}

TEST(selector, fewer_ops_than_the_threshold_is_serial) {
  const auto s = select_strategy(ops(7, true).build());
  EXPECT_EQ(s.chosen, strategy::serial);
  EXPECT_EQ(s.reason, "7 ops, fewer than serial_threshold 8");
}

TEST(selector, no_resource_bearing_op_is_serial) {
  const auto s = select_strategy(ops(8, false).build());
  EXPECT_EQ(s.chosen, strategy::serial);
  EXPECT_EQ(s.reason, "no op uses a resource pool");
}

TEST(selector, otherwise_cost_based) {
  const auto s = select_strategy(ops(8, true).build());
  EXPECT_EQ(s.chosen, strategy::cost);
  EXPECT_EQ(s.reason, "8 ops, at least one using a resource pool");
}

TEST(selector, a_requested_strategy_overrides_the_selector) {
  schedule_options o;
  o.requested = strategy::cost;
  const auto a = generate_schedule(ops(3, false).build(), o);
  EXPECT_EQ(a.used, strategy::cost);
  EXPECT_EQ(a.selected_because, "--strategy cost requested");
  EXPECT_TRUE(a.success);
  EXPECT_EQ(a.ii, 1u);
  const auto auto_a = generate_schedule(ops(3, false).build());
  EXPECT_EQ(auto_a.used, strategy::serial);
  EXPECT_EQ(auto_a.selected_because, "3 ops, fewer than serial_threshold 8");
}

TEST(selector, cost_requested_over_force_serial_execution_says_it_ignores_it) {
  // Issue 9 item 5: the attribute is not dropped without a word.
  schedule_options o;
  o.requested = strategy::cost;
  const auto a = generate_schedule(ops(8, true).force_serial().build(), o);
  EXPECT_EQ(a.used, strategy::cost);
  ASSERT_TRUE(a.success);
  ASSERT_EQ(a.diagnostics.size(), 1u);
  EXPECT_EQ(a.diagnostics[0].severity, diagnostic::level::warning);
  EXPECT_EQ(a.diagnostics[0].message,
            "cost-based path ignores force_serial_execution: the loop is modulo scheduled "
            "(drop --strategy cost to run it serially)");
  // Without the attribute the same request is silent.
  EXPECT_TRUE(generate_schedule(ops(8, true).build(), o).diagnostics.empty());
}

} // namespace
} // namespace kb::sched
