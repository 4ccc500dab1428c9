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

/// The pools an op uses (its slot group), as a sorted list.
std::vector<uint32_t> pools_of(const op_spec& op) {
  std::vector<uint32_t> out;
  for (const auto& cycle : op.reservation)
    for (const auto& u : cycle)
      if (u.count > 0)
        out.push_back(u.pool);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void consider(arm_result& best, const arm_result& r) {
  if (!r.accepted)
    return;
  if (!best.accepted || r.cost < best.cost ||
      (!(best.cost < r.cost) && static_cast<int>(r.which) < static_cast<int>(best.which)))
    best = r;
}

} // namespace

arm_result try_permute(modulo_state& s, const std::vector<uint32_t>& live, uint32_t budget,
                       uint64_t step) {
  arm_result best;
  best.which = arm::permute;
  if (live.empty() || budget == 0)
    return best;
  std::vector<uint32_t> order = live; // sorted: program order
  uint64_t total = 1;                 // k!, saturated at budget + 1
  for (std::size_t i = 2; i <= order.size() && total <= budget; ++i)
    total *= i;
  const bool exhaustive = total <= budget;
  uint64_t seed = step * 0x2545f4914f6cdd1dull + order.size();
  std::pair<uint64_t, int64_t> best_score{UINT64_MAX, INT64_MAX};
  for (uint32_t i = 0; i < budget; ++i) {
    if (!exhaustive) { // deterministic Fisher–Yates sample
      std::copy(live.begin(), live.end(), order.begin());
      for (std::size_t j = order.size() - 1; j > 0; --j)
        std::swap(order[j], order[detail::splitmix64(seed) % (j + 1)]);
    }
    modulo_state snap = s;
    std::pair<uint64_t, int64_t> score{0, 0};
    int64_t first_cycle = 0;
    bool legal = true;
    for (uint32_t v : order) {
      const auto r = snap.probe(v, false);
      if (r.stopped != gate::pass) {
        legal = false;
        break;
      }
      const auto c = snap.cost_of(v, r.cycle);
      score.first += c.slot_pressure;
      score.second += c.delay;
      if (v == order.front())
        first_cycle = r.cycle;
      snap.seat(v, r.cycle);
    }
    if (legal && score < best_score) {
      best_score = score;
      best.accepted = true;
      best.op = order.front();
      best.cycle = first_cycle;
    }
    if (exhaustive && !std::next_permutation(order.begin(), order.end()))
      break;
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
    const auto group = pools_of(s.prob().ops[a]);
    if (group.empty())
      continue;
    for (std::size_t j = i + 1; j < live.size(); ++j) {
      const uint32_t b = live[j];
      if (linked(s, a, b) || pools_of(s.prob().ops[b]) != group)
        continue;
      const auto [alo, ahi] = s.window(a);
      const auto [blo, bhi] = s.window(b);
      for (int64_t t = std::max(alo, blo); t <= std::min(ahi, bhi); ++t) {
        if (s.admit(a, t) != gate::pass || s.admit(b, t) != gate::pass || !s.fits_pair(a, b, t))
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
      if (s.admit(v, t) != gate::pass)
        continue;
      any = true;
      const auto c = s.cost_of(v, t);
      if (!best.accepted || c < best.cost) {
        best.accepted = true;
        best.cost = c;
        best.op = v;
        best.cycle = t;
      }
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
