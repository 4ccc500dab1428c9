// The exact "pack, then stage" search (ADR-0018) on loops small enough to
// derive by hand: a schedule it finds (checked by the independent validator),
// a packing that cannot exist, a recurrence that rules the packing out, and
// the node budget.

#include "tests/schedule/problem_builder.hpp"

#include "runtime/schedule/constraint_groups.hpp"
#include "runtime/schedule/exact_packing.hpp"
#include "runtime/schedule/mii.hpp"
#include "runtime/schedule/random_problem.hpp"
#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/validator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace kb::sched {
namespace {

using test::problem_builder;
using verdict = packing_answer::verdict;

packing_answer solve(const problem& p, uint32_t ii, uint64_t budget = 8000) {
  const dep_graph g(p);
  return solve_packing(p, g, same_depth_groups(p), compile_footprints(p), ii, {.node_budget = budget});
}

/// The answer's cycles as an analysis, so the validator can judge them.
schedule_analysis as_analysis(const problem& p, uint32_t ii, const std::vector<int64_t>& t) {
  const dep_graph g(p);
  schedule_analysis a = begin_analysis(p, g, strategy::cost);
  const auto n = static_cast<uint32_t>(t.size());
  const int64_t t_min = *std::min_element(t.begin(), t.end());
  std::vector<uint32_t> by_time(n);
  std::iota(by_time.begin(), by_time.end(), 0u);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](uint32_t x, uint32_t y) { return t[x] < t[y]; });
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t v = by_time[k];
    auto& s = a.seats[v];
    s.order = k;
    s.cycle = t[v];
    s.slot = static_cast<uint32_t>(t[v] % ii);
    s.depth = static_cast<uint32_t>(t[v] / ii);
    s.stage = static_cast<uint32_t>((t[v] - t_min) / ii);
  }
  a.ii = ii;
  a.success = true;
  return a;
}

/// One alu. a and b each use it in cycles 0 and 2; a → b (latency 1) and
/// b → a (latency 3, distance 1) fix t_b = t_a + 1 at II 4 (RecMII 4, ResMII
/// 4). a in slots {0, 2} and b in {1, 3} fill the table exactly.
problem interleaved_pair() {
  problem p = problem_builder{}
                .pool("alu", 1)
                .op("a", 1).op("b", 3).op("c", 1)
                .edge("a", "b").edge("b", "a", 1).edge("b", "c").build();
  p.ops[0].reservation = {{{0, 1}}, {}, {{0, 1}}};
  p.ops[1].reservation = p.ops[0].reservation;
  return p;
}

TEST(exact_packing, finds_the_one_interleaving_at_mii) {
  const problem p = interleaved_pair();
  const dep_graph g(p);
  ASSERT_EQ(compute_mii(p, g).mii, 4u);
  const auto r = solve(p, 4);
  ASSERT_EQ(r.found, verdict::schedule) << r.reason;
  ASSERT_EQ(r.cycles.size(), 3u);
  EXPECT_EQ(r.cycles[1] - r.cycles[0], 1); // the recurrence leaves no slack
  const auto v = validate_schedule(p, as_analysis(p, 4, r.cycles));
  EXPECT_TRUE(v.ok) << (v.violations.empty() ? "" : v.violations.front());
}

TEST(exact_packing, proves_a_full_table_cannot_be_packed) {
  // One dma unit at II 4 (ResMII 4: four units of use). a uses it in cycles
  // 0 and 2, so wherever a starts, its slots are s and s + 2 mod 4, and the
  // two left free are s + 1 and s + 3: two apart as well. b uses it in two
  // adjacent cycles and fits in no two slots that are two apart. No edges,
  // so nothing else could help: no schedule at II 4.
  problem p = problem_builder{}.pool("dma", 1).op("a", 1).op("b", 1).build();
  p.ops[0].reservation = {{{0, 1}}, {}, {{0, 1}}};
  p.ops[1].reservation = {{{0, 1}}, {{0, 1}}};
  const auto r = solve(p, 4);
  EXPECT_EQ(r.found, verdict::infeasible);
  EXPECT_GT(r.nodes, 0u);
  const auto at5 = solve(p, 5); // a at {0, 2}, b at {3, 4}
  ASSERT_EQ(at5.found, verdict::schedule);
  EXPECT_TRUE(validate_schedule(p, as_analysis(p, 5, at5.cycles)).ok);
}

TEST(exact_packing, proves_a_recurrence_rules_out_the_only_packings) {
  // One alu, a and b one cycle each: at II 2 the pool alone packs (slots 0
  // and 1). But a → b (latency 2) and b → a (latency 0, distance 1) give
  // t_b − t_a ≥ 2 and t_a + 2 ≥ t_b: t_b = t_a + 2, the same slot mod 2,
  // where the one alu cannot take both. RecMII = ResMII = 2, no schedule.
  // At II 3, t_b − t_a may be 2 or 3, and 2 puts b in another slot.
  const problem p = problem_builder{}
                      .pool("alu", 1)
                      .op("a", 2, {{"alu", 1}}).op("b", 0, {{"alu", 1}})
                      .edge("a", "b").edge("b", "a", 1).build();
  const dep_graph g(p);
  ASSERT_EQ(compute_mii(p, g).mii, 2u);
  EXPECT_EQ(solve(p, 2).found, verdict::infeasible);
  const auto at3 = solve(p, 3);
  ASSERT_EQ(at3.found, verdict::schedule);
  EXPECT_TRUE(validate_schedule(p, as_analysis(p, 3, at3.cycles)).ok);
}

TEST(exact_packing, says_unknown_when_the_budget_runs_out) {
  // The interleaved pair needs two nodes with the recurrences first (one per
  // recurrence op), and half the budget goes to that order. With one node the
  // search can neither find nor refute; with four it finds the schedule.
  const problem p = interleaved_pair();
  const auto r = solve(p, 4, 1);
  EXPECT_EQ(r.found, verdict::unknown);
  EXPECT_TRUE(r.cycles.empty());
  EXPECT_EQ(r.nodes, 1u);
  EXPECT_EQ(r.reason, "undecided after 1 nodes");
  const auto enough = solve(p, 4, 4);
  EXPECT_EQ(enough.found, verdict::schedule);
  EXPECT_EQ(enough.nodes, 2u);
  // An II above max_ii is not searched at all.
  const dep_graph g(p);
  const auto big = solve_packing(p, g, same_depth_groups(p), compile_footprints(p), 4,
                                 {.node_budget = 8000, .max_ops = 128, .max_ii = 3});
  EXPECT_EQ(big.found, verdict::unknown);
  EXPECT_EQ(big.nodes, 0u);
}

TEST(exact_packing, every_schedule_it_finds_validates_and_never_below_a_known_one) {
  // Random loops at MII and MII + 1, depths and groups included: whatever it
  // finds passes the validator, and it never refutes an II at which the
  // generator has a schedule.
  for (const bool constraints : {false, true})
    for (uint64_t seed = 1; seed <= 150; ++seed) {
      const problem p = random_problem(seed, {.constraints = constraints});
      const dep_graph g(p);
      const auto mii = compute_mii(p, g).mii;
      if (!mii)
        continue;
      const auto known = generate_modulo(p);
      for (uint32_t ii = *mii; ii <= *mii + 1; ++ii) {
        const auto r = solve(p, ii);
        if (r.found == verdict::schedule) {
          const auto v = validate_schedule(p, as_analysis(p, ii, r.cycles));
          EXPECT_TRUE(v.ok) << p.source << " II " << ii << ": " << v.violations.front();
        }
        if (r.found == verdict::infeasible) {
          EXPECT_NE(known.ii, ii) << p.source;
        }
      }
    }
}

} // namespace
} // namespace kb::sched
