// The admission gates G1–G4: their fixed order and each one's recovery action
// (hold over, mark dead, bump a cycle, reorder the group), plus the arms.

#include "tests/schedule/problem_builder.hpp"

#include "runtime/schedule/modulo_state.hpp"
#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/validator.hpp"

#include <gtest/gtest.h>

namespace kb::sched {
namespace {

using test::problem_builder;

/// a (gid 1) and b (gid 1) share a depth; p (latency 5) feeds b. ResMII 4.
problem group_problem() {
  auto b = problem_builder{}.pool("r", 1);
  b.op("a", 1, {{"r", 1}}, 2).gid(1);
  b.op("p", 5);
  b.op("b", 1, {{"r", 1}}, 2).gid(1);
  b.edge("p", "b");
  return b.build();
}

TEST(gates, run_in_fixed_order_g1_g2_g3_g4) {
  // One op that fails every gate at t = 4 reports G1 first; lifting each
  // failure in turn exposes the next gate.
  auto pb = problem_builder{}.pool("r", 1);
  pb.op("w", 1, {{"r", 1}}).gid(9);
  pb.op("x", 1, {{"r", 1}}).gid(9).max_depth(0);
  const auto p = pb.build();
  const dep_graph g(p);
  const auto groups = same_depth_groups(p);
  search_stats stats;
  modulo_state s(p, g, groups, 4, stats);
  s.seat(0, 0); // w: slot 0, depth 0
  s.pending[1] = true;
  EXPECT_EQ(s.admit(1, 4), gate::g1_pending);
  s.pending[1] = false;
  EXPECT_EQ(s.admit(1, 4), gate::g2_depth); // depth 1 > max_depth 0
  EXPECT_EQ(s.admit(1, 0), gate::g3_resource);
  auto p2 = p;
  p2.ops[1].max_depth.reset();
  modulo_state s2(p2, g, groups, 4, stats);
  s2.seat(0, 0);
  EXPECT_EQ(s2.admit(1, 5), gate::g4_group); // slot 1 free, but depth 1 ≠ 0
  EXPECT_EQ(s2.admit(1, 1), gate::pass);
}

TEST(gates, g3_bumps_the_seat_one_cycle_at_a_time) {
  const auto p = problem_builder{}.pool("r", 1).op("a", 1, {{"r", 1}}, 3).op("b", 1, {{"r", 1}}).build();
  const dep_graph g(p);
  const auto groups = same_depth_groups(p);
  search_stats stats;
  modulo_state s(p, g, groups, 4, stats);
  s.seat(0, 0); // slots 0, 1, 2
  const auto r = s.probe(1);
  EXPECT_EQ(r.stopped, gate::pass);
  EXPECT_EQ(r.cycle, 3);
  EXPECT_EQ(stats.g3_bump_cycle, 3u);
}

TEST(gates, g2_marks_the_op_dead_and_the_search_raises_ii_until_the_depth_fits) {
  // b must start at 5 or later but may not leave depth 0: II ≥ 6, MII 2.
  auto pb = problem_builder{}.pool("r", 1);
  pb.op("a", 5, {{"r", 1}});
  pb.op("b", 1, {{"r", 1}}).max_depth(0);
  pb.edge("a", "b");
  const auto p = pb.build();
  const auto a = generate_modulo(p);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.mii, 2u);
  EXPECT_EQ(a.ii, 6u);
  EXPECT_EQ(a.seats[1].cycle, 5);
  EXPECT_EQ(a.seats[1].depth, 0u);
  EXPECT_EQ(a.stats.ii_attempts, 5u);
  EXPECT_GT(a.stats.g2_mark_dead, 0u);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(gates, g4_reorders_the_group_in_list_placement_and_the_retry_arm_revives_the_op) {
  // a is seated first (depth 0); b cannot start before 5 (depth 1 at II 4):
  // G4 fires, the cost arm marks b dead, the group is reordered (a unseated and
  // held over by G1), the retry arm seats b at 5, then a follows into depth 1
  // at 7 after three G3 bumps (slots 0..2 collide with b's slots 1, 2).
  modulo_options o;
  o.skip_refinement = true;
  const auto p = group_problem();
  const auto a = generate_modulo(p, o);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.ii, 4u);
  EXPECT_EQ(a.stats.rung, "initial_placement");
  EXPECT_EQ(a.seats[0].cycle, 7);
  EXPECT_EQ(a.seats[1].cycle, 0);
  EXPECT_EQ(a.seats[2].cycle, 5);
  EXPECT_EQ(a.seats[0].depth, 1u);
  EXPECT_EQ(a.seats[2].depth, 1u);
  EXPECT_EQ(a.stats.g4_reorder_group, 1u);
  EXPECT_EQ(a.stats.g1_hold_over, 1u);
  EXPECT_EQ(a.stats.g3_bump_cycle, 3u);
  EXPECT_EQ(a.stats.arm_retry, 1u);
  EXPECT_EQ(a.stats.arm_permute, 3u);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(gates, g4_in_refinement_evicts_the_group_and_g1_holds_the_evicted_op_over) {
  // Heights: p 5, a 0, b 0 → p at 0, a at 0, then b (Estart 5) meets G4,
  // takes a forced seat at 5 and evicts a, which G1 holds over one step;
  // a then lands in b's depth row at 7.
  const auto p = group_problem();
  modulo_options o;
  o.exact_first_budget = 0; // Rau's rung first, as the gates are Rau's
  const auto a = generate_modulo(p, o);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.ii, 4u);
  EXPECT_EQ(a.stats.rung, "rau_refinement");
  EXPECT_EQ(a.seats[0].cycle, 7);
  EXPECT_EQ(a.seats[2].cycle, 5);
  EXPECT_EQ(a.stats.evictions, 1u);
  EXPECT_EQ(a.stats.g4_reorder_group, 1u);
  EXPECT_EQ(a.stats.g1_hold_over, 1u);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(arms, fuse_seats_two_compatible_ops_in_one_cycle) {
  // Two reads of a 5-wide pool: the fused seat leaves the row at 4/5, one row
  // contribution for two ops (400 per op), ties the permute arm's first seat
  // and wins by seating two.
  const auto p = problem_builder{}
                   .pool("smem_rd", 5)
                   .op("r1", 1, {{"smem_rd", 2}}).op("r2", 1, {{"smem_rd", 2}}).build();
  modulo_options o;
  o.skip_refinement = true;
  const auto a = generate_modulo(p, o);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.ii, 1u);
  EXPECT_EQ(a.stats.arm_fuse, 1u);
  EXPECT_EQ(a.stats.arm_permute, 0u);
  EXPECT_EQ(a.seats[0].cycle, 0);
  EXPECT_EQ(a.seats[1].cycle, 0);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(arms, cost_arm_seats_the_others_when_one_op_blocks_every_permutation) {
  // b may not leave depth 0 but cannot start before 5: below II 6 every
  // permutation that holds b fails, so the cost arm seats z and marks b dead;
  // the attempt fails and the search goes on to II 6, where b fits at 5.
  auto pb = problem_builder{}.pool("r", 1);
  pb.op("a", 5, {{"r", 1}});
  pb.op("b", 1, {{"r", 1}}).max_depth(0);
  pb.op("z", 1, {{"r", 1}});
  pb.edge("a", "b");
  const auto p = pb.build();
  modulo_options o;
  o.skip_refinement = true;
  const auto a = generate_modulo(p, o);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.mii, 3u);
  EXPECT_EQ(a.ii, 6u);
  EXPECT_EQ(a.stats.rung, "initial_placement");
  EXPECT_GT(a.stats.arm_cost, 0u);
  EXPECT_GT(a.stats.clears, 0u); // each failed II ran the clear-and-retry tail
  EXPECT_EQ(a.seats[0].cycle, 0);
  EXPECT_EQ(a.seats[1].cycle, 5);
  EXPECT_EQ(a.seats[2].cycle, 1);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

} // namespace
} // namespace kb::sched
