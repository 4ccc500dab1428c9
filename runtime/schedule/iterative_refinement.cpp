#include "runtime/schedule/iterative_refinement.hpp"

#include <algorithm>
#include <tuple>

#include "runtime/schedule/detail/splitmix.hpp"

namespace kb::sched {

namespace {

/// The unseated ops in the order they are taken: by (−height, program
/// order), or with a shuffle seed ties of height by a hash of the op. The
/// order is fixed for the attempt, so the queue is a bit set over ranks.
class op_queue {
public:
  op_queue(const modulo_state& s, uint64_t shuffle) : rank_(s.size()), words_((s.size() + 63) / 64, 0) {
    std::vector<std::tuple<int64_t, uint64_t, uint32_t>> keys;
    for (uint32_t v = 0; v < s.size(); ++v) {
      uint64_t x = shuffle ^ (uint64_t{v} * 0x9e3779b97f4a7c15ull);
      keys.emplace_back(-s.height(v), shuffle ? detail::splitmix64(x) : 0, v);
    }
    std::sort(keys.begin(), keys.end());
    for (uint32_t k = 0; k < keys.size(); ++k) {
      op_.push_back(std::get<2>(keys[k]));
      rank_[op_.back()] = k;
    }
  }
  void insert(uint32_t v) { words_[rank_[v] / 64] |= uint64_t{1} << (rank_[v] % 64); }
  void erase(uint32_t v) { words_[rank_[v] / 64] &= ~(uint64_t{1} << (rank_[v] % 64)); }
  /// Calls fn(v) for the queued ops in order until it returns true.
  template <class F>
  void walk(F&& fn) const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (uint64_t bits = words_[w]; bits; bits &= bits - 1)
        if (fn(op_[w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))]))
          return;
  }

private:
  std::vector<uint32_t> op_;   ///< op at each rank
  std::vector<uint32_t> rank_; ///< rank of each op
  std::vector<uint64_t> words_;
};

/// Highest height first, program order on ties; skips seated and dead ops.
/// An op that would win but is pending is held over (G1, counted) and the
/// next one is taken. Returns size() when there is none.
uint32_t next_op(const modulo_state& s, const op_queue& unseated) {
  bool held_first = false;
  auto found = static_cast<uint32_t>(s.size());
  unseated.walk([&](uint32_t v) {
    if (s.dead[v])
      return false;
    if (s.pending[v]) {
      held_first = true;
      return false;
    }
    found = v;
    return true;
  });
  if (held_first)
    ++s.stats->g1_hold_over;
  return found;
}

/// The latest legal cycle of the window, scanning down from its end.
std::optional<int64_t> latest_seat(const modulo_state& s, uint32_t v) {
  const auto [lo, hi] = s.window(v);
  for (int64_t t = hi; t >= lo; --t) {
    const gate g = s.admit(v, t);
    if (g == gate::pass)
      return t;
    if (g == gate::g3_resource)
      t -= s.g3_skip_down(v, t) - 1;
  }
  return std::nullopt;
}

void evict(modulo_state& s, uint32_t w, std::vector<uint32_t>& held, op_queue& unseated,
           bool lifted = false) {
  if (!lifted)
    s.unseat(w);
  unseated.insert(w);
  held.push_back(w);
  ++s.stats->evictions;
}

} // namespace

bool iterative_refine(modulo_state& s, const refine_options& o) {
  std::vector<std::optional<int64_t>> prev(s.size());
  std::vector<uint32_t> held; // evicted this step: pending for the next one
  bool revived = false;
  const auto ii = static_cast<int64_t>(s.ii());
  // No schedule needs an op later than every op one after another.
  int64_t horizon = ii;
  for (const auto& op : s.prob().ops)
    horizon += std::max<int64_t>(op.latency, static_cast<int64_t>(op.span())) + ii;

  op_queue unseated(s, o.shuffle);
  for (uint32_t v = 0; v < s.size(); ++v)
    if (!s.seated(v))
      unseated.insert(v);

  for (uint64_t step = 0; step < o.budget; ++step) {
    if (s.seated_count() == s.size())
      return true;
    uint32_t v = next_op(s, unseated);
    if (v == s.size()) {
      // Only held-over or dead ops are left: release the hold, or revive the
      // dead once (earlier evictions may have lowered their Estart).
      const bool any_pending = std::find(s.pending.begin(), s.pending.end(), true) != s.pending.end();
      if (any_pending) {
        std::fill(s.pending.begin(), s.pending.end(), false);
      } else if (!revived) {
        revived = true;
        std::fill(s.dead.begin(), s.dead.end(), false);
      } else {
        return false;
      }
      continue;
    }
    std::fill(s.pending.begin(), s.pending.end(), false); // the hold lasts one step

    std::optional<int64_t> t;
    if (o.latest && s.lstart(v)) {
      t = latest_seat(s, v);
    } else {
      const auto r = s.probe(v);
      if (r.stopped == gate::pass)
        t = r.cycle;
      else if (r.stopped == gate::g2_depth) {
        s.dead[v] = true;
        continue;
      }
    }
    held.clear();
    if (!t) {
      // Forced seat: one cycle past the last one tried, evicting conflicts.
      const int64_t at = std::max(s.estart(v), prev[v] ? *prev[v] + 1 : s.estart(v));
      const auto& md = s.prob().ops[v].max_depth;
      if (at > horizon || (md && s.depth_of(at) > static_cast<int64_t>(*md))) {
        s.dead[v] = true;
        continue;
      }
      for (uint32_t w : s.group_conflicts(v, at))
        evict(s, w, held, unseated);
      for (uint32_t w : s.unseat_resource_conflicts(v, at))
        evict(s, w, held, unseated, true);
      if (!s.fits(v, at)) { // its own reservation wraps onto itself at this II
        s.dead[v] = true;
        continue;
      }
      t = at;
    }
    s.seat(v, *t);
    unseated.erase(v);
    prev[v] = *t;
    // Successors whose dependence the new seat breaks are evicted too.
    for (uint32_t e : s.graph().succs(v)) {
      const auto& ed = s.graph().edge(e);
      if (ed.to == v || !s.seated(ed.to))
        continue;
      if (s.cycle(ed.to) < *t + ed.latency - static_cast<int64_t>(ed.distance) * ii)
        evict(s, ed.to, held, unseated);
    }
    for (uint32_t w : held)
      s.pending[w] = true;
  }
  return s.seated_count() == s.size();
}

} // namespace kb::sched
