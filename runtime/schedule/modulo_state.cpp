#include "runtime/schedule/modulo_state.hpp"

#include <algorithm>
#include <limits>

namespace kb::sched {

namespace {

int64_t mod(int64_t t, uint32_t ii) {
  const auto m = static_cast<int64_t>(ii);
  return ((t % m) + m) % m;
}

} // namespace

modulo_state::modulo_state(const problem& p, const dep_graph& g, const group_map& groups,
                           uint32_t ii, search_stats& s)
  : dead(p.ops.size(), false), pending(p.ops.size(), false), stats(&s), p_(&p), g_(&g),
    groups_(&groups), ii_(ii), seat_(p.ops.size()),
    mrt_(static_cast<std::size_t>(ii) * p.pools.size(), 0), height_(p.ops.size(), 0) {
  // Rau's HeightR: longest path to any op with weights latency − distance·II.
  // At II ≥ RecMII no cycle is positive, so n rounds reach the fixpoint.
  for (std::size_t round = 0; round < p.ops.size(); ++round) {
    bool changed = false;
    for (const auto& e : p.edges) {
      if (e.from == e.to)
        continue;
      const int64_t h = e.latency - static_cast<int64_t>(e.distance) * ii + height_[e.to];
      if (h > height_[e.from]) {
        height_[e.from] = h;
        changed = true;
      }
    }
    if (!changed)
      break;
  }
}

int64_t modulo_state::estart(uint32_t v) const {
  int64_t t = 0;
  for (uint32_t e : g_->preds(v)) {
    const auto& ed = g_->edge(e);
    if (ed.from != v && seat_[ed.from])
      t = std::max(t, *seat_[ed.from] + ed.latency - static_cast<int64_t>(ed.distance) * ii_);
  }
  return t;
}

std::optional<int64_t> modulo_state::lstart(uint32_t v) const {
  std::optional<int64_t> t;
  for (uint32_t e : g_->succs(v)) {
    const auto& ed = g_->edge(e);
    if (ed.to != v && seat_[ed.to]) {
      const int64_t bound = *seat_[ed.to] - ed.latency + static_cast<int64_t>(ed.distance) * ii_;
      t = t ? std::min(*t, bound) : bound;
    }
  }
  return t;
}

bool modulo_state::ready(uint32_t v) const {
  for (uint32_t e : g_->preds(v)) {
    const auto& ed = g_->edge(e);
    if (ed.distance == 0 && !seat_[ed.from])
      return false;
  }
  return true;
}

bool modulo_state::fits(uint32_t v, int64_t t) const {
  const auto& res = p_->ops[v].reservation;
  if (res.size() <= ii_) {
    int64_t slot = mod(t, ii_);
    for (std::size_t i = 0; i < res.size(); ++i) {
      for (const auto& u : res[i])
        if (cell(slot, u.pool) + u.count > p_->pools[u.pool].capacity)
          return false;
      if (++slot == static_cast<int64_t>(ii_))
        slot = 0;
    }
    return true;
  }
  // A reservation longer than II wraps onto its own slots: sum per slot first.
  std::vector<uint32_t> add(mrt_.size(), 0);
  for (std::size_t i = 0; i < res.size(); ++i)
    for (const auto& u : res[i]) {
      const auto idx =
        static_cast<std::size_t>(mod(t + static_cast<int64_t>(i), ii_)) * p_->pools.size() +
        u.pool;
      add[idx] += u.count;
      if (mrt_[idx] + add[idx] > p_->pools[u.pool].capacity)
        return false;
    }
  return true;
}

bool modulo_state::fits_pair(uint32_t a, uint32_t b, int64_t t) {
  if (!fits(a, t))
    return false;
  apply(a, t, +1);
  const bool ok = fits(b, t);
  apply(a, t, -1);
  return ok;
}

gate modulo_state::admit(uint32_t v, int64_t t, int32_t* blocking_group) const {
  if (pending[v])
    return gate::g1_pending;
  const auto& md = p_->ops[v].max_depth;
  if (md && depth_of(t) > static_cast<int64_t>(*md))
    return gate::g2_depth;
  if (!fits(v, t))
    return gate::g3_resource;
  if (!group_conflicts(v, t).empty()) {
    if (blocking_group)
      *blocking_group = groups_->group_of[v];
    return gate::g4_group;
  }
  return gate::pass;
}

std::pair<int64_t, int64_t> modulo_state::window(uint32_t v) const {
  const auto ii = static_cast<int64_t>(ii_);
  int64_t lo = estart(v);
  int64_t hi = lo + ii - 1;
  if (const auto ls = lstart(v))
    hi = std::min(hi, *ls);
  if (const auto d = group_depth(v)) { // the group's committed depth row
    lo = std::max(lo, *d * ii);
    hi = *d * ii + ii - 1; // the row may lie past Estart+II−1
    if (const auto ls = lstart(v))
      hi = std::min(hi, *ls);
  }
  return {lo, hi};
}

std::optional<int64_t> modulo_state::group_depth(uint32_t v) const {
  const int32_t grp = groups_->group_of[v];
  if (grp < 0)
    return std::nullopt;
  for (uint32_t w : groups_->groups[static_cast<std::size_t>(grp)])
    if (w != v && seat_[w])
      return depth_of(*seat_[w]);
  return std::nullopt;
}

probe_result modulo_state::probe(uint32_t v, bool count) const {
  const auto [lo, hi] = window(v);
  probe_result r;
  r.stopped = gate::g3_resource; // an empty window reads as "no free cycle"
  r.cycle = lo;
  const auto gd = group_depth(v);
  if (gd && *gd < depth_of(estart(v))) {
    // The group sits at a depth this op can no longer reach: G1 and G2 still
    // come first; otherwise G4 asks the caller to reorder the group.
    const gate g = admit(v, estart(v));
    r.cycle = estart(v);
    r.stopped = g == gate::g1_pending || g == gate::g2_depth ? g : gate::g4_group;
    if (r.stopped == gate::g1_pending)
      stats->g1_hold_over += count;
    else if (r.stopped == gate::g2_depth)
      stats->g2_mark_dead += count;
    else {
      stats->g4_reorder_group += count;
      r.blocking_group = groups_->group_of[v];
    }
    return r;
  }
  for (int64_t t = lo; t <= hi; ++t) {
    int32_t group = -1;
    const gate g = admit(v, t, &group);
    r.stopped = g;
    r.cycle = t;
    switch (g) {
      case gate::pass: return r;
      case gate::g1_pending: stats->g1_hold_over += count; return r;
      case gate::g2_depth: // depth only grows with t: no later cycle helps
        stats->g2_mark_dead += count;
        return r;
      case gate::g3_resource: stats->g3_bump_cycle += count; break;
      case gate::g4_group: // cannot happen inside the group's row
        stats->g4_reorder_group += count;
        r.blocking_group = group;
        return r;
    }
  }
  return r;
}

cost_vector modulo_state::cost_of(uint32_t v, int64_t t) const {
  cost_vector c;
  const auto& res = p_->ops[v].reservation;
  uint64_t pressure = 0;
  for (std::size_t i = 0; i < res.size(); ++i)
    for (const auto& u : res[i]) {
      const auto slot = mod(t + static_cast<int64_t>(i), ii_);
      pressure += (cell(slot, u.pool) + u.count) * 1000ull / p_->pools[u.pool].capacity;
    }
  c.slot_pressure = pressure;
  c.delay = t - estart(v);
  c.neg_height = -height_[v];
  c.neg_seated = -1;
  c.op = v;
  c.cycle = t;
  return c;
}

cost_vector modulo_state::cost_of_pair(uint32_t a, uint32_t b, int64_t t) {
  const cost_vector ca = cost_of(a, t);
  apply(a, t, +1);
  const cost_vector cb = cost_of(b, t);
  apply(a, t, -1);
  cost_vector c = ca;
  // One row contribution for the fused seat: the rows as the pair leaves
  // them, spread over the two ops it seats.
  c.slot_pressure = cb.slot_pressure / 2;
  c.delay = std::max(ca.delay, cb.delay);
  c.neg_height = std::min(ca.neg_height, cb.neg_height);
  c.neg_seated = -2;
  return c;
}

void modulo_state::apply(uint32_t v, int64_t t, int sign) {
  const auto& res = p_->ops[v].reservation;
  for (std::size_t i = 0; i < res.size(); ++i)
    for (const auto& u : res[i]) {
      auto& c = cell(mod(t + static_cast<int64_t>(i), ii_), u.pool);
      c = sign > 0 ? c + u.count : c - u.count;
    }
}

void modulo_state::seat(uint32_t v, int64_t t) {
  apply(v, t, +1);
  seat_[v] = t;
  ++seated_count_;
  dead[v] = false;
}

void modulo_state::unseat(uint32_t v) {
  apply(v, *seat_[v], -1);
  seat_[v].reset();
  --seated_count_;
}

std::vector<uint32_t> modulo_state::resource_conflicts(uint32_t v, int64_t t) {
  // Lift seated ops in program order until `v` fits (deterministic, minimal
  // for the common single conflict), then put them back: the caller evicts.
  std::vector<uint32_t> out;
  for (uint32_t w = 0; w < seat_.size() && !fits(v, t); ++w) {
    if (w == v || !seat_[w])
      continue;
    const auto& wr = p_->ops[w].reservation;
    bool shares = false;
    for (std::size_t i = 0; i < wr.size() && !shares; ++i)
      for (const auto& u : wr[i])
        for (const auto& mine : p_->ops[v].reservation)
          for (const auto& m : mine)
            shares = shares || m.pool == u.pool;
    if (!shares)
      continue;
    apply(w, *seat_[w], -1);
    out.push_back(w);
  }
  for (uint32_t w : out)
    apply(w, *seat_[w], +1);
  return out;
}

std::vector<uint32_t> modulo_state::group_conflicts(uint32_t v, int64_t t) const {
  std::vector<uint32_t> out;
  const int32_t grp = groups_->group_of[v];
  if (grp < 0)
    return out;
  for (uint32_t w : groups_->groups[static_cast<std::size_t>(grp)])
    if (w != v && seat_[w] && depth_of(*seat_[w]) != depth_of(t))
      out.push_back(w);
  return out;
}

} // namespace kb::sched
