#pragma once
// The schedule generators' entry points: the selector, the serial generator
// and the cost-based modulo generator, all returning `schedule_analysis`.

#include "runtime/schedule/analysis.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <string>

namespace kb::sched {

/// Knobs of the cost-based modulo generator. The defaults are what
/// `kernbench schedule` uses; tests shrink them to reach the later rungs.
struct modulo_options {
  uint32_t permute_budget = 120;   ///< permutations the permute arm may seat
  uint32_t refine_budget_ratio = 50; ///< Rau's BudgetRatio: steps per op
  uint32_t max_ii_slack = 0;  ///< extra IIs beyond the serial bound (0 = auto)
  bool skip_refinement = false; ///< start the ladder at the initial placement (no restarts)
  /// When Rau's rungs fail at an II: Rau's refinement again from an empty
  /// state, this many times, each with ties of height in another order,
  /// before the arm rungs (an II succeeds when any of them does).
  uint32_t restarts = 16;
  uint32_t restart_budget_ratio = 50; ///< steps per op of each restart
  /// When Rau's rungs fail at an II: nodes of the exact packing search
  /// (ADR-0018) before the restarts; its schedule wins, its proof skips the
  /// II, and "unknown" goes on with the ladder. 0 = off (none with
  /// `skip_refinement`).
  uint64_t exact_budget = 8000;
  /// Nodes of a first, short exact search before Rau's rungs, with the same
  /// answers (0 = none; at most `exact_budget`; ADR-0018, amendment).
  uint64_t exact_first_budget = 256;
};

struct schedule_options {
  strategy requested = strategy::automatic;
  modulo_options modulo;
};

/// The selector predicate; the first matching rule wins:
/// force_serial_execution → serial; fewer ops than serial_threshold → serial;
/// no op bears a resource → serial; otherwise cost.
struct selection {
  strategy chosen = strategy::serial;
  std::string reason;
};
selection select_strategy(const problem& p);

/// Topological walk over the distance-0 edges, ready queue popped in program
/// order, every op at stage 0. Fails (success = false, an error diagnostic
/// naming the ops on the cycle) on a dependence cycle. Every constraint it
/// ignores gets a warning naming it.
schedule_analysis generate_serial(const problem& p);

/// Cost-based modulo scheduling: II search upward from MII with the strategy
/// ladder per II.
schedule_analysis generate_modulo(const problem& p, const modulo_options& o = {});

/// Runs `check_problem`, the selector (or the requested strategy), and the
/// chosen generator.
schedule_analysis generate_schedule(const problem& p, const schedule_options& o = {});

} // namespace kb::sched
