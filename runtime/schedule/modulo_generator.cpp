// The cost-based modulo generator: II search upward from MII, and per II the
// strategy ladder — a short exact packing search, Rau refinement, deepest
// retry, the whole exact packing search, seeded restarts, initial placement,
// cost-based placement, then clear-and-retry of the last two.

#include "runtime/schedule/constraint_groups.hpp"
#include "runtime/schedule/dep_graph.hpp"
#include "runtime/schedule/exact_packing.hpp"
#include "runtime/schedule/iterative_refinement.hpp"
#include "runtime/schedule/mii.hpp"
#include "runtime/schedule/placement_arms.hpp"
#include "runtime/schedule/schedule.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <numeric>

namespace kb::sched {

namespace {

using attempt = std::function<std::optional<modulo_state>()>;

/// What the ladder says of one II: the winning state, or none, and then
/// whether the exact search proved that no schedule exists (`refuted`).
struct ladder_result {
  std::optional<modulo_state> won;
  std::optional<std::string> refuted;
};

/// Runs the ladder on a fresh state at `ii`. `exact`, when given, runs the
/// exact packing search before (short) and after the refinement rungs;
/// `before_arms`, when given, runs next, before the arm rungs (it works on
/// states of its own, so the ladder's result at this II does not depend on
/// where it runs, only its cost does).
ladder_result run_ladder(const problem& p, const dep_graph& g, const group_map& groups,
                         const std::shared_ptr<const footprints>& fp, uint32_t ii,
                         const modulo_options& o, search_stats& stats, bool deadlines,
                         bool exact, const attempt* before_arms = nullptr) {
  const uint64_t budget = uint64_t{o.refine_budget_ratio} * std::max<std::size_t>(1, p.ops.size());
  const placement_options initial{o.permute_budget, false};
  const placement_options heavy{o.permute_budget, true};
  modulo_state s(p, g, groups, ii, stats, fp);
  if (deadlines && !s.use_deadlines())
    return {}; // the depths cannot all be met at this II
  auto won = [&](const char* rung) {
    stats.rung = deadlines ? std::string(rung) + "_within_deadlines" : std::string(rung);
    return ladder_result{std::optional<modulo_state>(std::move(s)), std::nullopt};
  };
  auto fresh_attempt = [&] { // dead and pending are per attempt; seats carry
    std::fill(s.dead.begin(), s.dead.end(), false);
    std::fill(s.pending.begin(), s.pending.end(), false);
  };
  // A short exact search first: most loops pack at once, and its proof
  // skips the II without Rau's budget being spent on it.
  bool probed_whole = false; // the short search already ran the whole budget
  if (exact && o.exact_first_budget > 0 && o.exact_budget > 0) {
    const uint64_t first = std::min(o.exact_first_budget, o.exact_budget);
    const auto answer = solve_packing(p, g, groups, *fp, ii, {.node_budget = first});
    stats.exact_nodes += answer.nodes;
    if (answer.found == packing_answer::verdict::infeasible) {
      ++stats.exact_refuted;
      return {std::nullopt, answer.reason};
    }
    if (answer.found == packing_answer::verdict::schedule) {
      for (uint32_t v = 0; v < answer.cycles.size(); ++v)
        s.seat(v, answer.cycles[v]);
      return won("exact_packing");
    }
    probed_whole = first == o.exact_budget;
  }
  if (!o.skip_refinement) {
    if (iterative_refine(s, {budget, false}))
      return won("rau_refinement");
    fresh_attempt();
    if (iterative_refine(s, {2 * budget, true}))
      return won("deepest_retry");
    fresh_attempt();
  }
  if (exact && o.exact_budget > 0 && !probed_whole) {
    const auto answer = solve_packing(p, g, groups, *fp, ii, {.node_budget = o.exact_budget});
    stats.exact_nodes += answer.nodes;
    if (answer.found == packing_answer::verdict::infeasible) {
      ++stats.exact_refuted;
      return {std::nullopt, answer.reason};
    }
    if (answer.found == packing_answer::verdict::schedule) {
      s = modulo_state(p, g, groups, ii, stats, fp);
      for (uint32_t v = 0; v < answer.cycles.size(); ++v)
        s.seat(v, answer.cycles[v]);
      return won("exact_packing");
    }
  }
  if (before_arms)
    if (auto r = (*before_arms)())
      return {std::move(r), std::nullopt};
  if (arm_placement(s, initial))
    return won("initial_placement");
  fresh_attempt();
  if (arm_placement(s, heavy))
    return won("cost_based_placement");
  // Clear the intermediate state and rerun from an empty schedule.
  ++stats.clears;
  s = modulo_state(p, g, groups, ii, stats, fp);
  if (deadlines)
    s.use_deadlines();
  if (arm_placement(s, initial))
    return won("initial_placement_after_clear");
  s = modulo_state(p, g, groups, ii, stats, fp);
  if (deadlines)
    s.use_deadlines();
  if (arm_placement(s, heavy))
    return won("cost_based_placement_after_clear");
  return {};
}

/// Rau's refinement from an empty state with ties of height broken in a
/// seeded order (restart k), within the depth deadlines when there are any.
std::optional<modulo_state> restart(const problem& p, const dep_graph& g, const group_map& groups,
                                    const std::shared_ptr<const footprints>& fp, uint32_t ii,
                                    const modulo_options& o, search_stats& stats, uint32_t k,
                                    bool deadlines) {
  modulo_state s(p, g, groups, ii, stats, fp);
  if (deadlines && !s.use_deadlines())
    return std::nullopt;
  const uint64_t budget =
    uint64_t{o.restart_budget_ratio} * std::max<std::size_t>(1, p.ops.size());
  // Odd restarts seat as early as they can, even ones as late (deepest retry).
  if (!iterative_refine(s, {budget, k % 2 == 0, 0x5eed0000ull + k}))
    return std::nullopt;
  stats.rung = fmt::format("rau_refinement_restart_{}", k);
  return std::optional<modulo_state>(std::move(s));
}

void publish(const modulo_state& s, schedule_analysis& a) {
  const auto n = static_cast<uint32_t>(s.size());
  const auto ii = static_cast<int64_t>(s.ii());
  int64_t t_min = INT64_MAX;
  for (uint32_t v = 0; v < n; ++v)
    t_min = std::min(t_min, s.cycle(v));
  // Shift by whole IIs only: slots and relative depths stay as placed.
  const int64_t shift = n ? (t_min / ii) * ii : 0;
  t_min -= shift;
  std::vector<uint32_t> by_time(n);
  std::iota(by_time.begin(), by_time.end(), 0u);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](uint32_t x, uint32_t y) { return s.cycle(x) < s.cycle(y); });
  a.seats.assign(n, {});
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t v = by_time[k];
    const int64_t t = s.cycle(v) - shift;
    auto& seat = a.seats[v];
    seat.order = k;
    seat.cycle = t;
    seat.slot = static_cast<uint32_t>(t % ii);
    seat.depth = static_cast<uint32_t>(t / ii);
    seat.stage = static_cast<uint32_t>((t - t_min) / ii);
  }
  a.ii = s.ii();
  a.success = true;
}

} // namespace

schedule_analysis generate_modulo(const problem& p, const modulo_options& o) {
  const dep_graph g(p);
  const group_map groups = same_depth_groups(p);
  schedule_analysis a = begin_analysis(p, g, strategy::cost);
  if (p.force_serial_execution) // only an explicit request gets here; say so
    a.note(diagnostic::level::warning,
           "cost-based path ignores force_serial_execution: the loop is modulo scheduled "
           "(drop --strategy cost to run it serially)");
  if (!a.mii) {
    std::vector<std::string> names;
    for (uint32_t v : g.zero_distance_cycle())
      names.push_back(p.ops[v].name);
    a.note(diagnostic::level::error,
           fmt::format("dependence cycle with distance 0: {} -> {}; no II can schedule it",
                       fmt::join(names, " -> "), names.front()));
    return a;
  }
  const auto fp = std::make_shared<const footprints>(compile_footprints(p));
  const uint32_t hi = o.max_ii_slack ? *a.mii + o.max_ii_slack
                                     : std::max(*a.mii, serial_ii_bound(p));
  const bool depths = std::any_of(p.ops.begin(), p.ops.end(),
                                  [](const op_spec& op) { return op.max_depth.has_value(); });
  for (uint32_t ii = *a.mii; ii <= hi; ++ii) {
    ++a.stats.ii_attempts;
    // Rau again from empty states with other tie orders. They run before the
    // arm rungs, which cost far more; the II still succeeds exactly when the
    // ladder or a restart would.
    const attempt restarts = [&]() -> std::optional<modulo_state> {
      for (uint32_t k = 1; k <= o.restarts; ++k)
        if (auto r = restart(p, g, groups, fp, ii, o, a.stats, k, depths))
          return r;
      return std::nullopt;
    };
    auto r = run_ladder(p, g, groups, fp, ii, o, a.stats, false, !o.skip_refinement,
                        o.skip_refinement ? nullptr : &restarts);
    if (r.refuted) { // no schedule exists at this II: the rest of the ladder would fail
      a.note(diagnostic::level::note,
             fmt::format("II {}: no schedule (exact search: {})", ii, *r.refuted));
      continue;
    }
    auto& s = r.won;
    if (!s && depths) // the ladder again, every window clipped at its deadline
      s = run_ladder(p, g, groups, fp, ii, o, a.stats, true, false).won;
    if (s) {
      publish(*s, a);
      if (ii > *a.mii)
        a.note(diagnostic::level::note,
               fmt::format("II {} is above MII {} (ResMII {}, RecMII {})", ii, *a.mii,
                           a.res_mii, *a.rec_mii));
      return a;
    }
  }
  a.note(diagnostic::level::error,
         fmt::format("no schedule found for II {}..{}", *a.mii, hi));
  return a;
}

} // namespace kb::sched
