// The cost-based modulo generator on loops whose schedules are derived by
// hand: recurrence-bound, resource-bound, the II search, and the ladder.

#include "tests/schedule/problem_builder.hpp"

#include "runtime/schedule/random_problem.hpp"
#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/validator.hpp"

#include <gtest/gtest.h>

namespace kb::sched {
namespace {

using test::problem_builder;

std::vector<int64_t> cycles(const schedule_analysis& a) {
  std::vector<int64_t> out;
  for (const auto& s : a.seats)
    out.push_back(s.cycle.value_or(-1));
  return out;
}

/// a -(2)-> b -(3)-> c -(2, `distance`)-> a, each op on one of 3 ALUs.
problem three_op_recurrence(uint32_t distance) {
  return problem_builder{}
    .pool("alu", 3)
    .op("a", 2, {{"alu", 1}}).op("b", 3, {{"alu", 1}}).op("c", 2, {{"alu", 1}})
    .edge("a", "b").edge("b", "c").edge("c", "a", distance).build();
}

/// Rau's refinement as the first rung: no short exact search ahead of it.
modulo_options rau_first() {
  modulo_options o;
  o.exact_first_budget = 0;
  return o;
}

TEST(modulo_generator, recurrence_bound_loop_runs_at_rec_mii) {
  // a -(2)-> b -(3)-> c -(2, distance 1)-> a: RecMII = (2+3+2)/1 = 7.
  // Heights at II 7: a 5, b 3, c 0, so a, b, c are seated at 0, 2, 5.
  const auto p = three_op_recurrence(1);
  const auto a = generate_modulo(p, rau_first());
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.res_mii, 1u);
  EXPECT_EQ(a.rec_mii, 7u);
  EXPECT_EQ(a.ii, 7u);
  EXPECT_EQ(cycles(a), (std::vector<int64_t>{0, 2, 5}));
  EXPECT_EQ(a.stats.rung, "rau_refinement");
  EXPECT_EQ(a.stats.ii_attempts, 1u);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(modulo_generator, the_short_exact_search_packs_a_tight_recurrence_first) {
  // The loop above with the default ladder: the exact search runs first. At
  // II 7 the recurrence has no slack (b − a = 2 and c − b = 3 exactly), the
  // search gives a slot 0 (a shift of every start maps schedules onto
  // schedules), so b and c are forced to slots 2 and 5, all in stage 0.
  const auto p = three_op_recurrence(1);
  const auto a = generate_modulo(p);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.ii, 7u);
  EXPECT_EQ(cycles(a), (std::vector<int64_t>{0, 2, 5}));
  EXPECT_EQ(a.stats.rung, "exact_packing");
  EXPECT_GT(a.stats.exact_nodes, 0u);
  EXPECT_EQ(a.stats.evictions, 0u); // Rau never ran
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(modulo_generator, recurrence_over_two_iterations_halves_the_bound) {
  // Same cycle at distance 2: RecMII = ⌈7/2⌉ = 4; c at 5 is stage 1.
  const auto p = three_op_recurrence(2);
  const auto a = generate_modulo(p);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.ii, 4u);
  EXPECT_EQ(cycles(a), (std::vector<int64_t>{0, 2, 5}));
  EXPECT_EQ(a.seats[2].stage, 1u);
  EXPECT_EQ(a.seats[2].slot, 1u);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(modulo_generator, resource_bound_loop_runs_at_res_mii) {
  // Three ops each hold the one DMA for 2 cycles: ResMII = 6. a at 0; b bumps
  // past 0 and 1 to 2; c bumps past 0..3 to 4: six G3 bumps.
  const auto p = problem_builder{}
                   .pool("dma", 1)
                   .op("a", 1, {{"dma", 1}}, 2).op("b", 1, {{"dma", 1}}, 2)
                   .op("c", 1, {{"dma", 1}}, 2).build();
  const auto a = generate_modulo(p, rau_first());
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.res_mii, 6u);
  EXPECT_EQ(a.ii, 6u);
  EXPECT_EQ(cycles(a), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(a.stats.g3_bump_cycle, 6u);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(modulo_generator, a_reservation_longer_than_ii_wraps_onto_its_slots) {
  // One op holds dma in cycles 0 and 2 of a 3-cycle table: total use 2, but at
  // II 2 both uses land in slot 0; the search must move on to II 3. Once
  // Rau's rungs fail at II 2, the exact search proves it and skips the rest.
  problem p = problem_builder{}.pool("dma", 1).op("a", 1).build();
  p.ops[0].reservation = {{{0, 1}}, {}, {{0, 1}}};
  const auto a = generate_modulo(p);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.mii, 2u);
  EXPECT_EQ(a.ii, 3u);
  EXPECT_EQ(a.stats.ii_attempts, 2u);
  EXPECT_EQ(a.stats.exact_refuted, 1u);
  ASSERT_EQ(a.diagnostics.size(), 2u);
  EXPECT_EQ(a.diagnostics[0].message,
            "II 2: no schedule (exact search: op a takes 2 units of pool dma (capacity 1) in "
            "one slot)");
  EXPECT_EQ(a.diagnostics[1].message, "II 3 is above MII 2 (ResMII 2, RecMII 1)");
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(modulo_generator, zero_distance_cycle_fails_with_the_cycle_named) {
  const auto p = problem_builder{}
                   .pool("alu", 1)
                   .op("a", 1, {{"alu", 1}}).op("b", 1).edge("a", "b").edge("b", "a").build();
  const auto a = generate_modulo(p);
  EXPECT_FALSE(a.success);
  EXPECT_FALSE(a.mii.has_value());
  ASSERT_EQ(a.diagnostics.size(), 1u);
  EXPECT_EQ(a.diagnostics[0].message,
            "dependence cycle with distance 0: a -> b -> a; no II can schedule it");
}

TEST(modulo_generator, the_list_placement_rung_schedules_when_refinement_is_skipped) {
  const auto p = problem_builder{}
                   .pool("dma", 1)
                   .op("a", 1, {{"dma", 1}}, 2).op("b", 1, {{"dma", 1}}, 2)
                   .op("c", 1, {{"dma", 1}}, 2).build();
  modulo_options o;
  o.skip_refinement = true;
  const auto a = generate_modulo(p, o);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.stats.rung, "initial_placement");
  EXPECT_EQ(a.ii, 6u);
  EXPECT_EQ(a.stats.arm_permute + a.stats.arm_fuse + a.stats.arm_retry + a.stats.arm_cost, 3u);
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(modulo_generator, the_example_loop_schedules_at_mii) {
  // examples/schedule/gemm_mainloop.json in code form: DMA-bound, ResMII 4.
  auto b = problem_builder{}.pool("dma", 1).pool("tc", 1).pool("smem_wr", 2).pool("smem_rd", 5)
             .pool("simd", 1);
  b.op("load_a", 4, {{"dma", 1}}, 2).max_depth(1).gid(3);
  b.op("load_b", 4, {{"dma", 1}}, 2).gid(3);
  b.op("store_a", 1, {{"smem_wr", 1}}).op("store_b", 1, {{"smem_wr", 1}});
  b.op("read_a", 2, {{"smem_rd", 2}}, 2).op("read_b", 2, {{"smem_rd", 2}}, 2);
  b.op("mma", 3, {{"tc", 1}}, 3).op("scale", 2, {{"simd", 1}}).op("acc", 1, {{"simd", 1}});
  b.op("advance", 1);
  b.edge("load_a", "store_a").edge("load_b", "store_b").edge("store_a", "read_a")
    .edge("store_b", "read_b").edge("read_a", "mma").edge("read_b", "mma").edge("mma", "scale")
    .edge("scale", "acc").edge("acc", "acc", 1).edge("mma", "mma", 1)
    .edge("read_a", "load_a", 2, 0).edge("read_b", "load_b", 2, 0)
    .edge("advance", "load_a", 1).edge("advance", "load_b", 1).edge("advance", "advance", 1);
  const auto p = b.build();
  const auto a = generate_schedule(p);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.used, strategy::cost);
  EXPECT_EQ(a.mii, 4u);
  EXPECT_EQ(a.ii, 4u);
  EXPECT_EQ(a.seats[0].depth, a.seats[1].depth); // the same-depth group
  EXPECT_LE(*a.seats[0].depth, 1u);              // load_a's max_depth
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

TEST(modulo_generator, every_rung_of_the_ladder_can_produce_the_schedule) {
  // With Rau's budget cut to one step per op, these small random loops are
  // each first scheduled by a different rung; the clear-and-retry tail wins
  // where the state the earlier rungs left behind blocks a feasible II.
  struct row {
    uint64_t seed;
    const char* rung;
    uint32_t ii;
  };
  modulo_options o;
  o.refine_budget_ratio = 1;
  o.restarts = 0;    // the ladder's own rungs
  o.exact_budget = 0;
  for (const row& r : {row{1, "rau_refinement", 2}, row{2, "deepest_retry", 5},
                       row{3, "initial_placement", 4}, row{38, "initial_placement_after_clear", 9},
                       row{24, "cost_based_placement_after_clear", 6}}) {
    const problem p = random_problem(r.seed, {.max_ops = 10});
    const auto a = generate_modulo(p, o);
    ASSERT_TRUE(a.success) << r.seed;
    EXPECT_EQ(a.stats.rung, r.rung) << r.seed;
    EXPECT_EQ(a.ii, r.ii) << r.seed;
    EXPECT_EQ(a.stats.clears > 0, std::string_view(r.rung).ends_with("after_clear")) << r.seed;
    EXPECT_TRUE(validate_schedule(p, a).ok) << r.seed;
  }
}

TEST(modulo_generator, seeded_restarts_reach_mii_where_the_ladder_gave_up) {
  // Issue 9: when every rung fails at an II, Rau's refinement runs again from
  // an empty state with ties of height in a seeded order (odd restarts early,
  // even ones late). These loops of 7 and 9 ops reach MII that way; without
  // the restarts the ladder settles one II higher. The restarts only run
  // where the ladder failed, so no II is ever larger.
  struct row {
    uint64_t seed;
    uint32_t mii;
    const char* rung;
  };
  // (The exact packing search, which runs before the restarts, is off here.)
  modulo_options o;
  o.exact_budget = 0;
  for (const row& r : {row{160, 12, "rau_refinement_restart_1"},
                       row{208, 23, "rau_refinement_restart_2"}}) {
    const problem p = random_problem(r.seed);
    const auto a = generate_modulo(p, o);
    ASSERT_TRUE(a.success) << r.seed;
    EXPECT_EQ(a.mii, r.mii) << r.seed;
    EXPECT_EQ(a.ii, r.mii) << r.seed;
    EXPECT_EQ(a.stats.rung, r.rung) << r.seed;
    EXPECT_TRUE(validate_schedule(p, a).ok) << r.seed;
    modulo_options none = o;
    none.restarts = 0;
    EXPECT_EQ(generate_modulo(p, none).ii, r.mii + 1) << r.seed;
  }
}

TEST(modulo_generator, the_exact_packing_search_wins_before_the_restarts) {
  // The same two loops with the defaults: the exact search (ADR-0018) finds
  // a schedule at MII, so no restart runs.
  for (const uint64_t seed : {160u, 208u}) {
    const problem p = random_problem(seed);
    const auto a = generate_modulo(p);
    ASSERT_TRUE(a.success) << seed;
    EXPECT_EQ(a.ii, a.mii) << seed;
    EXPECT_EQ(a.stats.rung, "exact_packing") << seed;
    EXPECT_EQ(a.stats.exact_refuted, 0u) << seed;
    EXPECT_GT(a.stats.exact_nodes, 0u) << seed;
    EXPECT_TRUE(validate_schedule(p, a).ok) << seed;
  }
}

TEST(modulo_generator, an_ii_the_exact_search_refutes_is_skipped_with_a_note) {
  // One dma unit; a uses it in cycles 0 and 2, b in cycles 0 and 1: ResMII 4.
  // At II 4 a's slots are two apart, so the two it leaves free are too, and b
  // needs two adjacent ones: no schedule. At II 5, a at 0 and b at 3 fit.
  problem p = problem_builder{}.pool("dma", 1).op("a", 1).op("b", 1).build();
  p.ops[0].reservation = {{{0, 1}}, {}, {{0, 1}}};
  p.ops[1].reservation = {{{0, 1}}, {{0, 1}}};
  const auto a = generate_modulo(p);
  ASSERT_TRUE(a.success);
  EXPECT_EQ(a.mii, 4u);
  EXPECT_EQ(a.ii, 5u);
  EXPECT_EQ(a.stats.exact_refuted, 1u);
  ASSERT_EQ(a.diagnostics.size(), 2u);
  EXPECT_TRUE(a.diagnostics[0].message.starts_with("II 4: no schedule (exact search: "))
    << a.diagnostics[0].message;
  EXPECT_TRUE(validate_schedule(p, a).ok);
}

} // namespace
} // namespace kb::sched
