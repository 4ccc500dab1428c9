#include "runtime/schedule/iterative_refinement.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "runtime/schedule/detail/splitmix.hpp"

namespace kb::sched {

namespace {

/// The unseated ops by (−height, program order): the order ops are taken in.
/// With a shuffle seed, ties of height go by a hash of the op instead.
using queue_t = std::set<std::tuple<int64_t, uint64_t, uint32_t>>;

std::tuple<int64_t, uint64_t, uint32_t> key(const modulo_state& s, uint32_t v, uint64_t shuffle) {
  uint64_t x = shuffle ^ (uint64_t{v} * 0x9e3779b97f4a7c15ull);
  return {-s.height(v), shuffle ? detail::splitmix64(x) : 0, v};
}

/// Highest height first, program order on ties; skips seated and dead ops.
/// An op that would win but is pending is held over (G1, counted) and the
/// next one is taken. Returns size() when there is none. Walks `unseated`
/// from its front, so a step costs the dead and held ops it passes, not n.
uint32_t next_op(const modulo_state& s, const queue_t& unseated) {
  bool held_first = false;
  for (const auto& [neg_height, tie, v] : unseated) {
    if (s.dead[v])
      continue;
    if (s.pending[v]) {
      held_first = true;
      continue;
    }
    if (held_first)
      ++s.stats->g1_hold_over;
    return v;
  }
  if (held_first)
    ++s.stats->g1_hold_over;
  return static_cast<uint32_t>(s.size());
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

void evict(modulo_state& s, uint32_t w, std::vector<uint32_t>& held, queue_t& unseated,
           uint64_t shuffle) {
  s.unseat(w);
  unseated.insert(key(s, w, shuffle));
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

  queue_t unseated;
  for (uint32_t v = 0; v < s.size(); ++v)
    if (!s.seated(v))
      unseated.insert(key(s, v, o.shuffle));

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
        evict(s, w, held, unseated, o.shuffle);
      for (uint32_t w : s.resource_conflicts(v, at))
        evict(s, w, held, unseated, o.shuffle);
      if (!s.fits(v, at)) { // its own reservation wraps onto itself at this II
        s.dead[v] = true;
        continue;
      }
      t = at;
    }
    s.seat(v, *t);
    unseated.erase(key(s, v, o.shuffle));
    prev[v] = *t;
    // Successors whose dependence the new seat breaks are evicted too.
    for (uint32_t e : s.graph().succs(v)) {
      const auto& ed = s.graph().edge(e);
      if (ed.to == v || !s.seated(ed.to))
        continue;
      if (s.cycle(ed.to) < *t + ed.latency - static_cast<int64_t>(ed.distance) * ii)
        evict(s, ed.to, held, unseated, o.shuffle);
    }
    for (uint32_t w : held)
      s.pending[w] = true;
  }
  return s.seated_count() == s.size();
}

} // namespace kb::sched
