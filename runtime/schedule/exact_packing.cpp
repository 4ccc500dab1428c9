#include "runtime/schedule/exact_packing.hpp"

#include "runtime/schedule/recurrence_closure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>

namespace kb::sched {

namespace {

/// `count` units of `pool` in slot (start + slot) mod II.
struct cell {
  uint32_t pool = 0;
  uint32_t slot = 0;
  uint32_t count = 0;
  friend bool operator==(const cell&, const cell&) = default;
};

/// An op's runs folded onto the II slots, sorted by (pool, slot): what it
/// takes in each slot when it starts at slot 0. Wrapped and stacked runs add up.
std::vector<cell> fold(const op_footprint& f, uint32_t ii) {
  std::vector<cell> out;
  std::size_t cells = 0;
  for (const auto& r : f.runs)
    cells += (r.len / ii ? ii : 0) + r.len % ii;
  out.reserve(cells);
  for (const auto& r : f.runs) {
    if (const uint32_t full = r.len / ii)
      for (uint32_t s = 0; s < ii; ++s)
        out.push_back({r.pool, s, full * r.count});
    for (uint32_t k = 0; k < r.len % ii; ++k)
      out.push_back({r.pool, (r.offset + k) % ii, r.count});
  }
  std::sort(out.begin(), out.end(), [](const cell& a, const cell& b) {
    return std::tie(a.pool, a.slot) < std::tie(b.pool, b.slot);
  });
  std::size_t kept = 0; // merge equal (pool, slot) in place
  for (const cell& c : out)
    if (kept > 0 && out[kept - 1].pool == c.pool && out[kept - 1].slot == c.slot)
      out[kept - 1].count += c.count;
    else
      out[kept++] = c;
  out.resize(kept);
  return out;
}

/// The depth-first search. Phase i packs the ops that use pool
/// phases_[i].driver and no earlier driver; the recurrence ops are given
/// slots one by one, either all before the phases or, without a pool, after
/// them. The ops without a pool outside recurrences stay at slot 0.
class packing_search {
public:
  packing_search(const problem& p, const dep_graph& g, const group_map& groups,
                 const footprints& fp, const std::vector<std::vector<cell>>& folded,
                 recurrence_closure& rc, uint32_t ii, uint64_t budget, bool recurrences_first)
    : p_(p), g_(g), groups_(groups), fp_(fp), folded_(folded), rc_(rc), ii_(ii),
      budget_(budget), slot_of_(p.ops.size(), -1), use_(fp.capacity.size() * ii, 0) {
    const auto n = static_cast<uint32_t>(p.ops.size());
    const std::size_t pools = fp.capacity.size();
    std::vector<uint32_t> units_of(n * pools, 0); // op v's units of pool k, summed over slots
    for (uint32_t v = 0; v < n; ++v)
      for (const cell& c : folded[v])
        units_of[v * pools + c.pool] += c.count;
    const auto use_of = [&](uint32_t v, uint32_t k) { return units_of[v * pools + k]; };
    // Pools by spare units at this II, fewest first: the tightest pool
    // decides most and refutes fastest.
    std::vector<std::tuple<int64_t, uint32_t>> order;
    for (uint32_t k = 0; k < pools; ++k) {
      uint64_t demand = 0;
      for (uint32_t v = 0; v < n; ++v)
        demand += use_of(v, k);
      if (demand > 0)
        order.push_back({static_cast<int64_t>(uint64_t{fp.capacity[k]} * ii) -
                           static_cast<int64_t>(demand),
                         k});
    }
    std::sort(order.begin(), order.end());
    // recurrences_first: the recurrence ops get their slots before any pool
    // is packed (their slots fix each other most, so a failure between them
    // shows at once). Otherwise they are packed with their pools, ahead of
    // the other ops, and those without a pool get slots last.
    std::vector<bool> taken(n, false);
    for (uint32_t v = 0; v < n; ++v)
      if (rc.constrained(v) && (recurrences_first || folded[v].empty())) {
        (recurrences_first ? before_ : after_).push_back(v);
        taken[v] = true;
      }
    const auto units = [&](uint32_t v) {
      uint32_t u = 0;
      for (const cell& c : folded[v])
        u += c.count;
      return u;
    };
    std::stable_sort(before_.begin(), before_.end(), [&](uint32_t a, uint32_t b) {
      return std::tuple(rc.recurrence_of(a), ~units(a)) < std::tuple(rc.recurrence_of(b), ~units(b));
    });
    for (const auto& [spare, k] : order) {
      phase ph;
      ph.driver = k;
      ph.spare = spare;
      for (uint32_t v = 0; v < n; ++v)
        if (!taken[v] && use_of(v, k) > 0) {
          ph.items.push_back(v);
          taken[v] = true;
        }
      // Recurrence ops first, then the larger ops.
      std::stable_sort(ph.items.begin(), ph.items.end(), [&](uint32_t a, uint32_t b) {
        return std::tuple(rc.constrained(a), use_of(a, ph.driver), folded[a].size()) >
               std::tuple(rc.constrained(b), use_of(b, ph.driver), folded[b].size());
      });
      ph.same_as.assign(ph.items.size(), -1);
      for (std::size_t i = 0; i < ph.items.size(); ++i)
        for (std::size_t j = i; j-- > 0;)
          if (!rc.constrained(ph.items[i]) && !rc.constrained(ph.items[j]) &&
              folded[ph.items[i]] == folded[ph.items[j]]) {
            ph.same_as[i] = static_cast<int32_t>(j);
            break;
          }
      phases_.push_back(std::move(ph));
    }
    for (uint32_t v = 0; v < n; ++v)
      if (!taken[v])
        slot_of_[v] = 0; // free: no pool, no recurrence
    placed_in_.resize(n); // per recurrence id (fewer than n)
    room_hint_.assign(n, 0);
  }

  bool run() { return search_ops(true, 0); }
  bool out_of_budget() const { return out_of_budget_; }
  bool depth_rejected() const { return depth_rejected_; }
  uint64_t nodes() const { return nodes_; }
  const std::vector<int64_t>& cycles() const { return cycles_; }

private:
  struct phase {
    uint32_t driver = 0;
    int64_t spare = 0;             ///< driver units still allowed to stay empty
    std::vector<uint32_t> items;   ///< ops packed in this phase, by rank
    std::vector<int32_t> same_as;  ///< an interchangeable item of lower rank, or −1
  };

  uint32_t& use(uint32_t pool, uint32_t slot) { return use_[std::size_t{pool} * ii_ + slot]; }
  uint32_t cap(uint32_t pool) const { return fp_.capacity[pool]; }

  bool tick() {
    if (++nodes_ > budget_)
      out_of_budget_ = true;
    return !out_of_budget_;
  }

  uint32_t next_open(uint32_t pool, uint32_t s) {
    while (s < ii_ && use(pool, s) >= cap(pool))
      ++s;
    return s;
  }

  /// True when op v may start in slot r: every cell fits, its `driver` cells
  /// lie at or after slot s, and the recurrence windows agree pairwise.
  bool fits(uint32_t v, uint32_t r, uint32_t driver, uint32_t s) {
    for (const cell& c : folded_[v]) {
      const uint32_t at = (c.slot + r) % ii_;
      if ((c.pool == driver && at < s) || use(c.pool, at) + c.count > cap(c.pool))
        return false;
    }
    if (const int32_t id = rc_.recurrence_of(v); id >= 0)
      for (uint32_t u : placed_in_[static_cast<std::size_t>(id)])
        if (!rc_.pair_fits(u, static_cast<uint32_t>(slot_of_[u]), v, r))
          return false;
    return true;
  }

  /// Places v in slot r when it fits and its recurrence stays consistent.
  bool place(uint32_t v, uint32_t r, uint32_t driver, uint32_t s) {
    if (!fits(v, r, driver, s) || !rc_.assign(v, r))
      return false;
    for (const cell& c : folded_[v])
      use(c.pool, (c.slot + r) % ii_) += c.count;
    slot_of_[v] = static_cast<int32_t>(r);
    if (const int32_t id = rc_.recurrence_of(v); id >= 0)
      placed_in_[static_cast<std::size_t>(id)].push_back(v);
    return true;
  }

  void lift(uint32_t v) {
    const auto r = static_cast<uint32_t>(slot_of_[v]);
    for (const cell& c : folded_[v])
      use(c.pool, (c.slot + r) % ii_) -= c.count;
    slot_of_[v] = -1;
    if (const int32_t id = rc_.recurrence_of(v); id >= 0)
      placed_in_[static_cast<std::size_t>(id)].pop_back();
    rc_.unassign(v);
  }

  /// False when some item of the phase has no start left at all (from slot
  /// s on): no packing completes from here.
  bool every_item_has_room(const phase& ph, uint32_t s) {
    for (uint32_t v : ph.items) {
      if (slot_of_[v] >= 0)
        continue;
      // Start where v last had room: it mostly still has (same answer).
      uint32_t& r = room_hint_[v];
      bool room = false;
      for (uint32_t k = 0; k < ii_; ++k, r = r + 1 == ii_ ? 0 : r + 1)
        if ((room = fits(v, r, ph.driver, s)))
          break;
      if (!room)
        return false;
    }
    return true;
  }

  /// True when the search completes from here: phase `i`, slots before s
  /// closed, items taken at s so far of rank ≤ last.
  bool search(std::size_t i, uint32_t s, int64_t last) {
    if (i == phases_.size())
      return search_ops(false, 0);
    phase& ph = phases_[i];
    s = next_open(ph.driver, s);
    if (s >= ii_) // every item of the phase is placed (the spare is spent)
      return search(i + 1, 0, -1);
    if (!tick())
      return false;
    for (std::size_t j = static_cast<std::size_t>(last + 1); j < ph.items.size(); ++j) {
      const uint32_t v = ph.items[j];
      if (slot_of_[v] >= 0 ||
          (ph.same_as[j] >= 0 && slot_of_[ph.items[static_cast<std::size_t>(ph.same_as[j])]] < 0))
        continue;
      for (const cell& c : folded_[v]) {
        if (c.pool != ph.driver)
          continue;
        const uint32_t r = (s + ii_ - c.slot) % ii_; // this cell lands on s
        if (!place(v, r, ph.driver, s))
          continue;
        const uint32_t next = next_open(ph.driver, s);
        if (every_item_has_room(ph, s) &&
            search(i, next, next == s ? static_cast<int64_t>(j) : -1))
          return true; // the packing stays in place
        lift(v);
        if (out_of_budget_)
          return false;
      }
    }
    const int64_t room = cap(ph.driver) - use(ph.driver, s);
    if (room > ph.spare)
      return false;
    ph.spare -= room; // close s with its room left spare
    const bool done = search(i, s + 1, -1);
    ph.spare += room;
    return done;
  }

  /// The recurrence ops of before_ (ahead of the pools) or after_ (after
  /// them), each at any slot that fits and stays consistent. Shifting every
  /// start by one cycle maps schedules onto schedules, so the first op taken
  /// ahead of the pools takes slot 0 only.
  bool search_ops(bool before, std::size_t i) {
    const auto& ops = before ? before_ : after_;
    if (i == ops.size())
      return before ? search(0, 0, -1) : stage();
    if (!tick())
      return false;
    const uint32_t v = ops[i];
    for (uint32_t r = 0; r < (before && i == 0 ? 1 : ii_); ++r) {
      if (!place(v, r, UINT32_MAX, 0))
        continue;
      if (search_ops(before, i + 1))
        return true;
      lift(v);
      if (out_of_budget_)
        return false;
    }
    return false;
  }

  /// Every op has a slot: the least whole IIs k ≥ 0 that meet the edges (and
  /// the groups), by longest paths; then max_depth. True with `cycles_` set.
  bool stage() {
    const auto n = static_cast<uint32_t>(p_.ops.size());
    const auto ii = static_cast<int64_t>(ii_);
    std::vector<int64_t> k(n, 0);
    bool changed = true;
    for (uint32_t round = 0; changed && round <= n + 1; ++round) {
      changed = false;
      for (std::size_t e = 0; e < g_.edge_count(); ++e) {
        const auto& ed = g_.edge(static_cast<uint32_t>(e));
        const int64_t c = ceil_div(ed.latency - static_cast<int64_t>(ed.distance) * ii -
                                     slot_of_[ed.to] + slot_of_[ed.from],
                                   ii);
        if (k[ed.from] + c > k[ed.to]) {
          k[ed.to] = k[ed.from] + c;
          changed = true;
        }
      }
      for (const auto& members : groups_.groups) {
        int64_t top = 0;
        for (uint32_t v : members)
          top = std::max(top, k[v]);
        for (uint32_t v : members)
          if (k[v] < top) {
            k[v] = top;
            changed = true;
          }
      }
    }
    bool ok = !changed;
    for (uint32_t v = 0; ok && v < n; ++v)
      ok = !p_.ops[v].max_depth || k[v] <= static_cast<int64_t>(*p_.ops[v].max_depth);
    if (!ok) {
      // No proof can follow; stop rather than walk packings that would
      // mostly miss the same depths. (Without depths this is never reached.)
      depth_rejected_ = out_of_budget_ = true;
      return false;
    }
    cycles_.resize(n);
    for (uint32_t v = 0; v < n; ++v)
      cycles_[v] = slot_of_[v] + ii * k[v];
    return true;
  }

  const problem& p_;
  const dep_graph& g_;
  const group_map& groups_;
  const footprints& fp_;
  const std::vector<std::vector<cell>>& folded_;
  recurrence_closure& rc_;
  uint32_t ii_;
  uint64_t budget_;
  uint64_t nodes_ = 0;
  bool out_of_budget_ = false;
  bool depth_rejected_ = false;
  std::vector<phase> phases_;
  std::vector<uint32_t> before_; ///< recurrence ops given slots ahead of the pools
  std::vector<uint32_t> after_;  ///< recurrence ops given slots after them
  std::vector<int32_t> slot_of_;                 ///< per op, −1 without a slot
  std::vector<std::vector<uint32_t>> placed_in_; ///< ops with slots per recurrence
  std::vector<uint32_t> use_;                    ///< units per (pool, slot)
  std::vector<uint32_t> room_hint_;              ///< per op, a slot where it last fitted
  std::vector<int64_t> cycles_;
};

} // namespace

packing_answer solve_packing(const problem& p, const dep_graph& g, const group_map& groups,
                             const footprints& fp, uint32_t ii, const packing_limits& limits) {
  packing_answer a;
  if (ii == 0 || ii > limits.max_ii || p.ops.size() > limits.max_ops) {
    a.reason = "not searched";
    return a;
  }
  std::vector<std::vector<cell>> folded;
  folded.reserve(p.ops.size());
  for (std::size_t v = 0; v < p.ops.size(); ++v) {
    folded.push_back(fold(fp.ops[v], ii));
    for (const cell& c : folded.back())
      if (c.count > fp.capacity[c.pool]) {
        a.found = packing_answer::verdict::infeasible;
        a.reason = fmt::format("op {} takes {} units of pool {} (capacity {}) in one slot",
                               p.ops[v].name, c.count, p.pools[c.pool].name,
                               fp.capacity[c.pool]);
        return a;
      }
  }
  recurrence_closure rc(p, g, ii);
  if (rc.positive_cycle()) {
    a.found = packing_answer::verdict::infeasible;
    a.reason = "a recurrence needs a larger II";
    return a;
  }
  // Two orders, each exact, with half the budget each: the recurrences ahead
  // of the pools decide tight recurrences at once, but loose ones multiply
  // the packings; with their pools they do not.
  bool found = false, out_of_budget = false, depth_rejected = false;
  uint64_t left = limits.node_budget;
  for (const bool recurrences_first : {true, false}) {
    const uint64_t budget = recurrences_first ? left / 2 + left % 2 : left;
    packing_search search(p, g, groups, fp, folded, rc, ii, budget, recurrences_first);
    found = search.run();
    left -= std::min(budget, search.nodes());
    out_of_budget = search.out_of_budget();
    depth_rejected = depth_rejected || search.depth_rejected();
    if (found)
      a.cycles = search.cycles();
    if (!out_of_budget || depth_rejected) // found, a proof, or no proof possible
      break;
  }
  a.nodes = limits.node_budget - left;
  if (found) {
    a.found = packing_answer::verdict::schedule;
  } else if (depth_rejected) {
    a.reason = "a packing missed a depth";
  } else if (out_of_budget) {
    a.reason = fmt::format("undecided after {} nodes", limits.node_budget);
  } else {
    a.found = packing_answer::verdict::infeasible;
    a.reason = fmt::format("the reservations cannot be packed modulo {} within the "
                           "recurrences ({} nodes)",
                           ii, a.nodes);
  }
  return a;
}

} // namespace kb::sched
