// The serial generator: program-order topological walk, cycles named, every
// ignored constraint warned about.

#include "tests/schedule/problem_builder.hpp"

#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/validator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::sched {
namespace {

using test::problem_builder;
using ::testing::ElementsAre;

std::vector<std::string> names_in_order(const problem& p, const schedule_analysis& a) {
  std::vector<std::string> out;
  for (uint32_t v : a.emitted_order())
    out.push_back(p.ops[v].name);
  return out;
}

std::vector<std::string> messages(const schedule_analysis& a) {
  std::vector<std::string> out;
  for (const auto& d : a.diagnostics)
    out.push_back(std::string(to_string(d.severity)) + ": " + d.message);
  return out;
}

TEST(serial_generator, ready_queue_pops_in_program_order) {
  // in-degree 0: c, d. Walk: c (frees a), a, d (frees b), b.
  const auto p = problem_builder{}
                   .op("a", 1).op("b", 1).op("c", 1).op("d", 1)
                   .edge("c", "a").edge("d", "b").build();
  const auto a = generate_serial(p);
  ASSERT_TRUE(a.success);
  EXPECT_THAT(names_in_order(p, a), ElementsAre("c", "a", "d", "b"));
  for (const auto& s : a.seats) {
    EXPECT_EQ(s.stage, 0u);
    EXPECT_FALSE(s.cycle.has_value());
  }
  EXPECT_FALSE(a.ii.has_value());
  EXPECT_TRUE(a.diagnostics.empty());
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(serial_generator, loop_carried_edges_do_not_order_the_walk) {
  const auto p = problem_builder{}.op("a", 1).op("b", 1).edge("b", "a", 1).build();
  const auto a = generate_serial(p);
  ASSERT_TRUE(a.success);
  EXPECT_THAT(names_in_order(p, a), ElementsAre("a", "b"));
  EXPECT_THAT(messages(a),
              ElementsAre("warning: serial path ignores loop-carried edge b -> a (distance 1)"));
}

TEST(serial_generator, a_dependence_cycle_fails_and_names_its_ops) {
  const auto p = problem_builder{}
                   .op("x", 1).op("a", 1).op("b", 1).op("c", 1).op("after", 1)
                   .edge("a", "b").edge("b", "c").edge("c", "a").edge("c", "after").build();
  const auto a = generate_serial(p);
  EXPECT_FALSE(a.success);
  EXPECT_THAT(messages(a), ElementsAre("error: dependence cycle: a -> b -> c -> a (ops left "
                                       "unscheduled: a, b, c, after)"));
  const auto v = validate_schedule(p, a);
  EXPECT_FALSE(v.ok);
}

TEST(serial_generator, warns_about_each_constraint_it_ignores) {
  auto b = problem_builder{}.pool("dma", 1).pool("tc", 2);
  b.op("load", 4, {{"dma", 1}}, 2).max_depth(1).gid(3);
  b.op("mma", 2, {{"tc", 1}}).gid(3);
  b.op("lone", 1).gid(7);
  b.edge("load", "mma").edge("mma", "mma", 1);
  const auto p = b.build();
  const auto a = generate_serial(p);
  ASSERT_TRUE(a.success);
  EXPECT_THAT(messages(a),
              ElementsAre("warning: serial path ignores max_depth 1 of op 'load'",
                          "warning: serial path ignores the same-depth group {load, mma}",
                          "warning: serial path ignores the capacity 1 of pool 'dma' (used by load)",
                          "warning: serial path ignores the capacity 2 of pool 'tc' (used by mma)",
                          "warning: serial path ignores loop-carried edge mma -> mma (distance 1)"));
}

} // namespace
} // namespace kb::sched
