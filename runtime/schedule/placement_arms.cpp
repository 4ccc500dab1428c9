#include "runtime/schedule/placement_arms.hpp"

#include "runtime/schedule/detail/splitmix.hpp"

#include <algorithm>
#include <numeric>

namespace kb::sched {

namespace {

bool linked(const modulo_state& s, uint32_t a, uint32_t b) {
  for (uint32_t e : s.graph().succs(a))
    if (s.graph().edge(e).to == b)
      return true;
  for (uint32_t e : s.graph().succs(b))
    if (s.graph().edge(e).to == a)
      return true;
  return false;
}

void consider(arm_result& best, const arm_result& r) {
  if (!r.accepted)
    return;
  if (!best.accepted || r.cost < best.cost ||
      (!(best.cost < r.cost) && static_cast<int>(r.which) < static_cast<int>(best.which)))
    best = r;
}

} // namespace

namespace {

using score = std::pair<uint64_t, int64_t>; // (Σ pressure, Σ delay) of an order

/// True when an order whose ops seated so far score `sc`, and whose other
/// ops need at least `rest` more pressure, can still score below `best`.
/// Both sums only grow, and no seat costs less than its least pressure, so an
/// order cut here would not have replaced `best` either.
bool can_beat(const score& sc, uint64_t rest, const score& best) {
  return score{sc.first + rest, sc.second} < best;
}

/// Seats `v` at its earliest legal seat for a trial; false when it has none or
/// when the order can no longer beat `best` (`rest`: the least pressure of the
/// ops still to seat after `v`).
bool trial_seat(modulo_state& s, uint32_t v, score& sc, const score& best, uint64_t rest,
                std::vector<std::pair<uint32_t, bool>>& trial, int64_t* cycle) {
  if (!can_beat(sc, s.least_pressure(v) + rest, best))
    return false; // no need to probe
  const auto r = s.probe(v, false);
  if (r.stopped != gate::pass)
    return false;
  const auto c = s.cost_of(v, r.cycle);
  sc.first += c.slot_pressure;
  sc.second += c.delay;
  if (!can_beat(sc, rest, best))
    return false;
  if (cycle)
    *cycle = r.cycle;
  trial.push_back({v, s.dead[v]});
  s.seat(v, r.cycle);
  return true;
}

void take_back(modulo_state& s, std::vector<std::pair<uint32_t, bool>>& trial, std::size_t keep) {
  while (trial.size() > keep) {
    s.unseat(trial.back().first);
    s.dead[trial.back().first] = trial.back().second;
    trial.pop_back();
  }
}

/// Every order of `live` in lexicographic order, depth first: orders that
/// share a prefix seat it once, and a prefix that cannot beat the best order
/// found so far is cut (its orders would not have replaced it either).
void permute_all(modulo_state& s, const std::vector<uint32_t>& live, std::vector<bool>& used,
                 std::size_t depth, score sc, uint64_t left, score& best, int64_t& best_cycle,
                 uint32_t& best_op, std::vector<std::pair<uint32_t, bool>>& trial,
                 uint32_t first, int64_t first_cycle) {
  if (depth == live.size()) {
    best = sc; // trial_seat let it through only when strictly better
    best_op = first;
    best_cycle = first_cycle;
    return;
  }
  if (!can_beat(sc, left, best)) // `left`: the least pressure of the unseated
    return;
  for (std::size_t i = 0; i < live.size(); ++i) {
    if (used[i])
      continue;
    score next = sc;
    int64_t cycle = 0;
    const std::size_t keep = trial.size();
    const uint64_t rest = left - s.least_pressure(live[i]);
    if (!trial_seat(s, live[i], next, best, rest, trial, &cycle))
      continue;
    used[i] = true;
    permute_all(s, live, used, depth + 1, next, rest, best, best_cycle, best_op, trial,
                depth == 0 ? live[i] : first, depth == 0 ? cycle : first_cycle);
    used[i] = false;
    take_back(s, trial, keep);
  }
}

/// `budget` orders of `live` drawn by a deterministic Fisher–Yates shuffle
/// per sample, in draw order.
std::vector<std::vector<uint32_t>> sample_orders(const std::vector<uint32_t>& live,
                                                 uint32_t budget, uint64_t step) {
  std::vector<std::vector<uint32_t>> out(budget, live);
  uint64_t seed = step * 0x2545f4914f6cdd1dull + live.size();
  for (auto& order : out)
    for (std::size_t j = order.size() - 1; j > 0; --j)
      std::swap(order[j], order[detail::splitmix64(seed) % (j + 1)]);
  return out;
}

} // namespace

arm_result try_permute(modulo_state& s, const std::vector<uint32_t>& live, uint32_t budget,
                       uint64_t step) {
  arm_result best;
  best.which = arm::permute;
  if (live.empty() || budget == 0)
    return best;
  uint64_t total = 1; // k!, saturated at budget + 1
  for (std::size_t i = 2; i <= live.size() && total <= budget; ++i)
    total *= i;
  const bool exhaustive = total <= budget;
  score best_score{UINT64_MAX, INT64_MAX};
  // Orders are seated on `s` itself and taken back afterwards: no copy of
  // the state per permutation.
  std::vector<std::pair<uint32_t, bool>> trial; // (op, was dead) seated by this order
  if (exhaustive) {
    std::vector<bool> used(live.size(), false);
    uint64_t left = 0;
    for (uint32_t v : live)
      left += s.least_pressure(v);
    permute_all(s, live, used, 0, {0, 0}, left, best_score, best.cycle, best.op, trial, 0, 0);
    best.accepted = best_score.first != UINT64_MAX;
  } else {
    const auto sampled = sample_orders(live, budget, step);
    // Walked in lexicographic order, so that orders sharing a prefix seat it
    // once; the winner is still the first sample (in draw order) with the
    // lowest score, as when they were walked in draw order.
    std::vector<uint32_t> by_order(sampled.size());
    std::iota(by_order.begin(), by_order.end(), 0u);
    std::stable_sort(by_order.begin(), by_order.end(),
                     [&](uint32_t a, uint32_t b) { return sampled[a] < sampled[b]; });
    std::vector<score> partial{{0, 0}}; // score after seating each prefix
    std::vector<int64_t> cycles;        // seat of each op of the prefix
    std::vector<uint64_t> rest(live.size() + 1, 0); // least pressure of order[d..]
    uint32_t best_index = UINT32_MAX;
    for (uint32_t i : by_order) {
      const auto& order = sampled[i];
      for (std::size_t d = order.size(); d-- > 0;)
        rest[d] = rest[d + 1] + s.least_pressure(order[d]);
      std::size_t common = 0;
      while (common < trial.size() && trial[common].first == order[common])
        ++common;
      take_back(s, trial, common);
      partial.resize(common + 1);
      cycles.resize(common);
      // An order that can no longer beat the best cannot win (can_beat, with
      // ties going to the earlier draw).
      auto beats = [&](const score& sc, uint64_t more) {
        const score bound{sc.first + more, sc.second};
        return bound < best_score || (bound == best_score && i < best_index);
      };
      bool alive = beats(partial.back(), rest[common]);
      for (std::size_t d = common; alive && d < order.size(); ++d) {
        const uint32_t v = order[d];
        const auto r = s.probe(v, false);
        if (r.stopped != gate::pass) {
          alive = false;
          break;
        }
        const auto c = s.cost_of(v, r.cycle);
        const score sc{partial.back().first + c.slot_pressure, partial.back().second + c.delay};
        alive = beats(sc, rest[d + 1]);
        if (!alive)
          break;
        trial.push_back({v, s.dead[v]});
        s.seat(v, r.cycle);
        partial.push_back(sc);
        cycles.push_back(r.cycle);
      }
      if (alive) {
        best_score = partial.back();
        best_index = i;
        best.accepted = true;
        best.op = order.front();
        best.cycle = cycles.front();
      }
    }
    take_back(s, trial, 0);
  }
  if (best.accepted)
    best.cost = s.cost_of(best.op, best.cycle);
  return best;
}

arm_result try_fuse(modulo_state& s, const std::vector<uint32_t>& live) {
  arm_result best;
  best.which = arm::fuse;
  for (std::size_t i = 0; i < live.size(); ++i) {
    const uint32_t a = live[i];
    const auto& group = s.pools_of(a);
    if (group.empty())
      continue;
    for (std::size_t j = i + 1; j < live.size(); ++j) {
      const uint32_t b = live[j];
      if (linked(s, a, b) || s.pools_of(b) != group || s.never_fit_together(a, b))
        continue;
      const auto [alo, ahi] = s.window(a);
      const auto [blo, bhi] = s.window(b);
      for (int64_t t = std::max(alo, blo); t <= std::min(ahi, bhi); ++t) {
        const gate ga = s.admit(a, t);
        const gate gb = ga == gate::pass ? s.admit(b, t) : gate::pass;
        if (ga == gate::g3_resource || gb == gate::g3_resource) {
          // Skip the cycles at which that op still meets a full slot.
          t += (ga == gate::g3_resource ? s.g3_skip_up(a, t) : s.g3_skip_up(b, t)) - 1;
          continue;
        }
        if (ga != gate::pass || gb != gate::pass || !s.fits_pair(a, b, t))
          continue;
        arm_result r;
        r.accepted = true;
        r.which = arm::fuse;
        r.op = a;
        r.partner = b;
        r.cycle = t;
        r.cost = s.cost_of_pair(a, b, t);
        if (!best.accepted || r.cost < best.cost)
          best = r;
        break; // the earliest common cycle of this pair
      }
    }
  }
  return best;
}

arm_result try_retry(modulo_state& s, const std::vector<uint32_t>& dead) {
  arm_result r;
  r.which = arm::retry;
  for (uint32_t v : dead) {
    const auto p = s.probe(v);
    if (p.stopped != gate::pass)
      continue; // still dead
    s.dead[v] = false;
    r.accepted = true;
    r.op = v;
    r.cycle = p.cycle;
    r.cost = s.cost_of(v, p.cycle);
    return r;
  }
  return r;
}

arm_result try_cost_based(modulo_state& s, const std::vector<uint32_t>& live) {
  arm_result best;
  best.which = arm::cost;
  for (uint32_t v : live) {
    const auto [lo, hi] = s.window(v);
    bool any = false;
    for (int64_t t = lo; t <= hi; ++t) {
      const gate g = s.admit(v, t);
      if (g == gate::g3_resource)
        t += s.g3_skip_up(v, t) - 1; // no legal seat before the full slots pass
      if (g != gate::pass)
        continue;
      any = true;
      const auto c = s.cost_of(v, t);
      if (!best.accepted || c < best.cost) {
        best.accepted = true;
        best.cost = c;
        best.op = v;
        best.cycle = t;
      }
      // With the same pressure at every legal seat, a later one only adds delay.
      if (s.flat_pressure(v))
        break;
    }
    if (!any)
      s.dead[v] = true;
  }
  return best;
}

bool arm_placement(modulo_state& s, const placement_options& o) {
  std::vector<bool> reordered(s.size(), false);
  std::vector<uint32_t> ready, live, dead;
  for (uint64_t step = 0; s.seated_count() < s.size(); ++step) {
    ready.clear();
    live.clear();
    dead.clear();
    for (uint32_t v = 0; v < s.size(); ++v) {
      if (s.seated(v) || !s.ready(v))
        continue;
      ready.push_back(v);
      if (s.pending[v])
        ++s.stats->g1_hold_over; // G1: held over to the next attempt
      else
        (s.dead[v] ? dead : live).push_back(v);
    }
    arm_result best;
    consider(best, try_fuse(s, live));
    consider(best, try_permute(s, live, o.permute_budget, step));
    consider(best, try_retry(s, dead));
    if (o.always_cost || !best.accepted)
      consider(best, try_cost_based(s, live));

    if (!best.accepted) {
      const bool held = std::any_of(ready.begin(), ready.end(), [&](uint32_t v) { return s.pending[v]; });
      std::fill(s.pending.begin(), s.pending.end(), false);
      if (held)
        continue; // the hold is over: retry those ops
      // G4: an op that only its group's depth blocks leads the group instead:
      // the members are unseated and held over, and follow it.
      bool reorder = false;
      for (uint32_t v : ready) {
        if (reordered[v])
          continue;
        const auto r = s.probe(v);
        if (r.stopped != gate::g4_group)
          continue;
        reordered[v] = reorder = true;
        for (uint32_t w : s.group_conflicts(v, r.cycle)) {
          s.unseat(w);
          s.pending[w] = true;
        }
        break; // `v` stays dead until the retry arm finds it a seat
      }
      if (!reorder)
        return false;
      continue;
    }
    std::fill(s.pending.begin(), s.pending.end(), false);
    if (!best.partner && best.which != arm::retry)
      s.probe(best.op); // count the gates met on the way to the committed seat
    s.seat(best.op, best.cycle);
    if (best.partner)
      s.seat(*best.partner, best.cycle);
    switch (best.which) {
      case arm::fuse: ++s.stats->arm_fuse; break;
      case arm::permute: ++s.stats->arm_permute; break;
      case arm::retry: ++s.stats->arm_retry; break;
      case arm::cost: ++s.stats->arm_cost; break;
    }
  }
  return true;
}

} // namespace kb::sched
