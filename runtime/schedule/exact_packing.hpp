#pragma once
// The exact "pack, then stage" search at one II (issue 9, ADR-0018).
//
// Without depths, a loop has a modulo schedule at II exactly when every op can
// get a slot s_v in [0, II) such that (a) the reservations, folded modulo II,
// fit every pool, and (b) the dependences' difference constraints on the
// whole IIs, k_w − k_u ≥ ⌈(latency − distance·II − s_w + s_u) / II⌉, have no
// positive cycle. Only recurrences can have one, so (b) is checked on them as
// their ops get slots (recurrence_closure); the stages then follow from
// longest paths (t_v = s_v + II·k_v).
//
// The search fills the pools one after another, the tightest first. Within a
// pool the lowest slot with room either takes an op whose cell lands on it or
// is closed with its room left spare, so every packing is met once and
// exhausting the tree is a proof. Interchangeable ops are taken in one order.
// Work is counted in search nodes, so the answer does not depend on timing.
//
// max_depth and same-depth groups are checked on each complete packing (the
// least whole IIs meet them if any do). The packings are still enumerated
// exactly, but ops without reservations outside recurrences keep slot 0 there,
// so with depths a failed check makes the final answer "unknown", never a proof.

#include "runtime/schedule/constraint_groups.hpp"
#include "runtime/schedule/dep_graph.hpp"
#include "runtime/schedule/modulo_table.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kb::sched {

struct packing_limits {
  uint64_t node_budget = 8000; ///< search nodes at one II
  /// Larger loops or IIs are not searched (unknown): a node's cost grows
  /// with ops × II, and the budget counts nodes.
  uint32_t max_ops = 128;
  uint32_t max_ii = 512;
};

struct packing_answer {
  enum class verdict : uint8_t {
    schedule,   ///< `cycles` meets every constraint at the II
    infeasible, ///< no schedule exists at the II; `reason` says why
    unknown,    ///< the budget ran out, or a packing missed a depth
  };
  verdict found = verdict::unknown;
  std::vector<int64_t> cycles; ///< schedule: start per op, all ≥ 0
  std::string reason;
  uint64_t nodes = 0;
};

/// Searches for a schedule at `ii` or a proof that there is none.
packing_answer solve_packing(const problem& p, const dep_graph& g, const group_map& groups,
                             const footprints& fp, uint32_t ii,
                             const packing_limits& limits = {});

} // namespace kb::sched
