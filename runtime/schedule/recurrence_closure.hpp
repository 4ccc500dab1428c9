#pragma once
// The recurrences' difference constraints once ops have slots (issue 9).
//
// At an II every edge u → w asks t_w − t_u ≥ latency − distance·II. Within a
// recurrence (strongly connected component) the longest paths D(u, w) of
// these weights are the tightest such bounds, through any ops of it. Once u
// and w have slots s_u, s_w, t = s + II·k, and the bound becomes one on the
// whole IIs: k_w − k_u ≥ ⌈(D(u, w) − s_w + s_u) / II⌉. The slots given so far
// are consistent exactly when these bounds have no positive cycle: the ops
// still without a slot are free integers, and eliminating them from
// difference constraints only leaves the paths through them, which D holds.
// The closure keeps the longest paths between the ops with slots and adds one
// op in O(m²) for m of them; removals undo the last addition.

#include "runtime/schedule/dep_graph.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <vector>

namespace kb::sched {

class recurrence_closure {
public:
  /// The recurrences of `g` of two or more ops at `ii`.
  recurrence_closure(const problem& p, const dep_graph& g, uint32_t ii);

  /// Some recurrence has a positive cycle at this II: no slots are consistent.
  bool positive_cycle() const { return positive_cycle_; }
  /// The op lies on a recurrence of two or more ops.
  bool constrained(uint32_t v) const { return scc_[v] >= 0; }
  /// Index of the op's recurrence, −1 for none.
  int32_t recurrence_of(uint32_t v) const { return scc_[v]; }

  /// A quick test of two ops of one recurrence: some t_v − t_u in slot
  /// difference rv − ru lies within [D(u, v), −D(v, u)]. Only a necessary
  /// condition once more ops have slots; always true across recurrences.
  bool pair_fits(uint32_t u, uint32_t ru, uint32_t v, uint32_t rv) const;

  /// Gives `v` slot `slot` when that stays consistent with the ops of its
  /// recurrence that have slots; false (and nothing changes) otherwise. Ops
  /// outside recurrences always succeed.
  bool assign(uint32_t v, uint32_t slot);
  /// Undoes the last successful assign of `v` (last in, first out).
  void unassign(uint32_t v);

private:
  struct component {
    std::vector<uint32_t> members;
    std::vector<int64_t> d;        ///< k×k longest paths on t, row = from
    std::vector<int64_t> k;        ///< k×k longest paths on whole IIs (closure)
    std::vector<uint32_t> placed;  ///< local indices with slots, in order
    std::vector<uint32_t> slot;    ///< per local index
  };
  struct undo_entry {
    uint32_t index = 0;
    int64_t value = 0;
  };

  /// ⌈(D(a, b) − s_b + s_a) / II⌉ for local a, b of component c.
  int64_t bound(const component& c, uint32_t a, uint32_t b) const;

  std::vector<int32_t> scc_;
  std::vector<uint32_t> local_;
  std::vector<component> comps_;
  std::vector<undo_entry> undo_;
  std::vector<std::size_t> marks_; ///< undo_ size at each assign of a constrained op
  std::vector<int64_t> to_, from_; ///< scratch
  int64_t ii_;
  bool positive_cycle_ = false;
};

/// ⌈a / b⌉ and ⌊a / b⌋ for b > 0.
inline int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
inline int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

} // namespace kb::sched
