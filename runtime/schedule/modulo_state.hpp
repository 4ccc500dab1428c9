#pragma once
// The state of one modulo-scheduling attempt at a fixed II: seats, the modulo
// reservation table (MRT), the dead and pending sets, and the admission gates
// G1–G4 with the lexicographic cost vector that ranks legal seats.

#include "runtime/schedule/analysis.hpp"
#include "runtime/schedule/constraint_groups.hpp"
#include "runtime/schedule/dep_graph.hpp"
#include "runtime/schedule/modulo_table.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace kb::sched {

/// What the gate ladder says of a candidate seat, in gate order.
enum class gate : uint8_t {
  pass,
  g1_pending,  ///< op is in the pending set → hold it over to the next attempt
  g2_depth,    ///< seat deeper than max_depth → mark the op dead
  g3_resource, ///< MRT conflict → bump the seat one cycle
  g4_group,    ///< a group member sits at another depth → reorder the group
};

/// Lexicographic cost of a seat: the hard gate decides legality, slot
/// pressure and structural distance rank legal seats; the rest only make ties
/// deterministic. Never collapsed into one scalar.
struct cost_vector {
  uint32_t hard_gate = 0;     ///< 0 = legal
  uint64_t slot_pressure = 0; ///< permille occupancy of the rows touched, per op seated
  int64_t delay = 0;          ///< structural distance: cycles past the earliest start
  int64_t neg_height = 0;     ///< structural distance: −critical-path height
  int64_t neg_seated = 0;     ///< −ops seated by this seat (a fusion seats two)
  uint32_t op = 0;            ///< program order
  int64_t cycle = 0;

  auto tie() const {
    return std::tie(hard_gate, slot_pressure, delay, neg_height, neg_seated, op, cycle);
  }
  friend bool operator<(const cost_vector& a, const cost_vector& b) { return a.tie() < b.tie(); }
  static cost_vector infinite() {
    cost_vector c;
    c.hard_gate = 1;
    return c;
  }
};

/// The result of probing one op for its earliest legal seat.
struct probe_result {
  gate stopped = gate::pass;   ///< pass: `cycle` is legal
  int64_t cycle = 0;
  int32_t blocking_group = -1; ///< g4: the group whose depth disagrees
};

class modulo_state {
public:
  modulo_state(const problem& p, const dep_graph& g, const group_map& groups, uint32_t ii,
               search_stats& stats);
  /// The same with the problem's footprints compiled once by the caller.
  modulo_state(const problem& p, const dep_graph& g, const group_map& groups, uint32_t ii,
               search_stats& stats, std::shared_ptr<const footprints> fp);

  // -- queries ----------------------------------------------------------------
  uint32_t ii() const { return ii_; }
  const problem& prob() const { return *p_; }
  const dep_graph& graph() const { return *g_; }
  std::size_t size() const { return seat_.size(); }
  bool seated(uint32_t v) const { return seat_[v].has_value(); }
  int64_t cycle(uint32_t v) const { return *seat_[v]; }
  std::size_t seated_count() const { return seated_count_; }
  int64_t height(uint32_t v) const { return height_[v]; }
  int64_t depth_of(int64_t t) const { return t / static_cast<int64_t>(ii_); }

  /// Earliest start allowed by the seated predecessors (all edges), ≥ 0.
  int64_t estart(uint32_t v) const;
  /// Latest start allowed by the seated successors; nullopt when unbounded.
  std::optional<int64_t> lstart(uint32_t v) const;
  /// True when every distance-0 predecessor of `v` is seated.
  bool ready(uint32_t v) const;
  /// True when the op's reservation fits the MRT at start `t`.
  bool fits(uint32_t v, int64_t t) const;
  /// Same, for two ops seated together at `t` (the fuse arm).
  bool fits_pair(uint32_t a, uint32_t b, int64_t t);
  /// True when two ops seated in one cycle always overflow a pool, at any t.
  bool never_fit_together(uint32_t a, uint32_t b) const;
  /// When `v` does not fit at `t`: cycles k ≥ 1 such that it fits at none of
  /// t, …, t+k−1 (upward) or t, …, t−k+1 (downward). Exact skips over slots
  /// that stay full, so scans cost runs, not cycles.
  int64_t g3_skip_up(uint32_t v, int64_t t) const;
  int64_t g3_skip_down(uint32_t v, int64_t t) const;
  /// Every legal seat of `v` has the same slot pressure.
  bool flat_pressure(uint32_t v) const { return fp_->ops[v].flat_pressure; }
  /// No seat of `v` has a lower slot pressure than this.
  uint64_t least_pressure(uint32_t v) const { return fp_->ops[v].least_pressure; }
  /// The pools `v` uses, sorted.
  const std::vector<uint32_t>& pools_of(uint32_t v) const { return fp_->ops[v].pools; }

  /// The gate ladder, always in the order G1, G2, G3, G4.
  gate admit(uint32_t v, int64_t t, int32_t* blocking_group = nullptr) const;
  /// Start cycles the dependences allow, [Estart, Estart+II−1] clipped by
  /// Lstart, moved into the depth row of the op's group once a member sits.
  std::pair<int64_t, int64_t> window(uint32_t v) const;
  /// Depth of the op's seated group members, if any.
  std::optional<int64_t> group_depth(uint32_t v) const;
  /// Walks the window upward applying each gate's recovery: G3 bumps the
  /// cycle; G1, G2, and G4 (the group's row lies before Estart) stop the
  /// probe for the caller to hold over, mark dead or reorder. Counts the gates
  /// that fired.
  probe_result probe(uint32_t v, bool count = true) const;
  /// Cost of seating `v` at `t` (legal or not: the caller gates first).
  cost_vector cost_of(uint32_t v, int64_t t) const;
  cost_vector cost_of_pair(uint32_t a, uint32_t b, int64_t t);

  /// Clips every window at the op's deadline: its max_depth row end, carried
  /// back to its predecessors along the edges (t_u ≤ D_v − latency +
  /// distance·II). False when some op's deadline lies before its earliest
  /// start along the edges: no schedule at this II meets the depths.
  bool use_deadlines();
  /// The deadline of `v` (INT64_MAX without one, or before use_deadlines).
  int64_t deadline(uint32_t v) const { return deadline_.empty() ? INT64_MAX : deadline_[v]; }

  // -- updates ----------------------------------------------------------------
  void seat(uint32_t v, int64_t t);
  void unseat(uint32_t v);
  /// Unseats the seated ops whose use conflicts with seating `v` at `t`:
  /// those that share a pool with it, in program order, until it fits.
  /// Returns them in that order.
  std::vector<uint32_t> unseat_resource_conflicts(uint32_t v, int64_t t);
  /// Seated members of `v`'s group at a depth other than depth_of(t).
  std::vector<uint32_t> group_conflicts(uint32_t v, int64_t t) const;

  std::vector<bool> dead;    ///< marked dead by G2 (or no seat) this attempt
  std::vector<bool> pending; ///< held over by G1 until the next attempt
  search_stats* stats;       ///< gate counters (shared by snapshots)

private:
  void apply(uint32_t v, int64_t t, int sign);
  /// The op's reservation is not a set of disjoint runs at this II.
  bool wraps(uint32_t v) const {
    return fp_->ops[v].stacked || fp_->ops[v].span > ii_;
  }
  bool fits_cellwise(uint32_t v, int64_t t) const;
  /// window() from the op's Estart, Lstart and group depth, already known.
  std::pair<int64_t, int64_t> window_from(uint32_t v, int64_t es, std::optional<int64_t> ls,
                                          std::optional<int64_t> d) const;
  /// A run of `v` that does not fit at `t` (the one the last fits() found).
  const run* blocking_run(uint32_t v, int64_t t) const;

  struct blocked {
    uint32_t op = 0;
    int64_t t = 0;
    int64_t run = -1;
  };
  mutable blocked blocked_; ///< what the last failed fits() met: a skip reuses it

  const problem* p_;
  const dep_graph* g_;
  const group_map* groups_;
  uint32_t ii_;
  std::vector<std::optional<int64_t>> seat_;
  std::shared_ptr<const footprints> fp_;
  modulo_table mrt_;
  std::vector<int64_t> height_;
  std::vector<int64_t> deadline_; ///< empty unless use_deadlines()
  std::size_t seated_count_ = 0;
};

} // namespace kb::sched
