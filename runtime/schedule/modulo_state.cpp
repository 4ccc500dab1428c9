#include "runtime/schedule/modulo_state.hpp"

#include <algorithm>
#include <limits>

namespace kb::sched {

namespace {

int64_t mod(int64_t t, uint32_t ii) {
  const auto m = static_cast<int64_t>(ii);
  if (t >= 0)
    return t < m ? t : t % m;
  return ((t % m) + m) % m;
}

/// Calls fn(first slot, length) for the run started at `t`, in pieces of at
/// most II slots (a run longer than II covers some slots more than once).
template <class F>
void for_pieces(const run& r, int64_t t, uint32_t ii, F&& fn) {
  int64_t at = t + r.offset;
  for (uint32_t left = r.len; left > 0;) {
    const uint32_t n = std::min(left, ii);
    fn(static_cast<uint32_t>(mod(at, ii)), n);
    at += n;
    left -= n;
  }
}

} // namespace

modulo_state::modulo_state(const problem& p, const dep_graph& g, const group_map& groups,
                           uint32_t ii, search_stats& s)
  : modulo_state(p, g, groups, ii, s, std::make_shared<const footprints>(compile_footprints(p))) {}

modulo_state::modulo_state(const problem& p, const dep_graph& g, const group_map& groups,
                           uint32_t ii, search_stats& s, std::shared_ptr<const footprints> fp)
  : dead(p.ops.size(), false), pending(p.ops.size(), false), stats(&s), p_(&p), g_(&g),
    groups_(&groups), ii_(ii), seat_(p.ops.size()), fp_(std::move(fp)),
    mrt_(fp_->capacity, ii), height_(p.ops.size(), 0) {
  // Rau's HeightR: longest path to any op with weights latency − distance·II.
  // At II ≥ RecMII no cycle is positive, so n rounds reach the fixpoint (the
  // unique one); the edges are relaxed last to first, which carries a height
  // down a chain written in program order in one round.
  for (std::size_t round = 0; round < p.ops.size(); ++round) {
    bool changed = false;
    for (auto it = p.edges.rbegin(); it != p.edges.rend(); ++it) {
      const auto& e = *it;
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

bool modulo_state::use_deadlines() {
  const auto ii = static_cast<int64_t>(ii_);
  const std::size_t n = p_->ops.size();
  constexpr int64_t none = INT64_MAX / 4;
  deadline_.assign(n, none);
  std::vector<int64_t> earliest(n, 0);
  for (std::size_t v = 0; v < n; ++v)
    if (const auto& md = p_->ops[v].max_depth)
      deadline_[v] = (static_cast<int64_t>(*md) + 1) * ii - 1;
  // Longest-path relaxation both ways; at II ≥ RecMII n rounds settle it.
  for (std::size_t round = 0; round <= n; ++round) {
    bool changed = false;
    for (const auto& e : p_->edges) {
      if (e.from == e.to)
        continue;
      const int64_t w = e.latency - static_cast<int64_t>(e.distance) * ii;
      if (deadline_[e.to] < none && deadline_[e.to] - w < deadline_[e.from]) {
        deadline_[e.from] = deadline_[e.to] - w;
        changed = true;
      }
      if (earliest[e.from] + w > earliest[e.to]) {
        earliest[e.to] = earliest[e.from] + w;
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  for (std::size_t v = 0; v < n; ++v)
    if (deadline_[v] < earliest[v])
      return false;
  return true;
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
  if (wraps(v))
    return fits_cellwise(v, t);
  const auto& runs = fp_->ops[v].runs;
  const auto base = static_cast<uint32_t>(mod(t, ii_)); // offsets are below II here
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const uint32_t at = base + r.offset >= ii_ ? base + r.offset - ii_ : base + r.offset;
    if (!mrt_.fits(r.pool, at, r.len, r.count)) {
      blocked_ = {v, t, static_cast<int64_t>(i)};
      return false;
    }
  }
  return true;
}

const run* modulo_state::blocking_run(uint32_t v, int64_t t) const {
  if (blocked_.op != v || blocked_.t != t || blocked_.run < 0) {
    blocked_.run = -1;
    if (fits(v, t))
      return nullptr;
  }
  return &fp_->ops[v].runs[static_cast<std::size_t>(blocked_.run)];
}

bool modulo_state::fits_cellwise(uint32_t v, int64_t t) const {
  // A reservation longer than II wraps onto its own slots: sum per slot first.
  const auto& res = p_->ops[v].reservation;
  const std::size_t pools = p_->pools.size();
  std::vector<uint32_t> add(static_cast<std::size_t>(ii_) * pools, 0);
  for (std::size_t i = 0; i < res.size(); ++i)
    for (const auto& u : res[i]) {
      const auto cell = static_cast<uint32_t>(mod(t + static_cast<int64_t>(i), ii_));
      const std::size_t idx = std::size_t{cell} * pools + u.pool;
      add[idx] += u.count;
      if (mrt_.usage(u.pool, cell) + add[idx] > p_->pools[u.pool].capacity)
        return false;
    }
  for (const auto& h : p_->ops[v].holds)
    for (uint32_t i = 0; i < h.cycles && h.count > 0; ++i) {
      const auto cell = static_cast<uint32_t>(mod(t + static_cast<int64_t>(i), ii_));
      const std::size_t idx = std::size_t{cell} * pools + h.pool;
      add[idx] += h.count;
      if (mrt_.usage(h.pool, cell) + add[idx] > p_->pools[h.pool].capacity)
        return false;
    }
  return true;
}

bool modulo_state::never_fit_together(uint32_t a, uint32_t b) const {
  // Two runs on one pool that overlap in offset overflow it at every t.
  for (const auto& x : fp_->ops[a].runs)
    for (const auto& y : fp_->ops[b].runs)
      if (x.pool == y.pool && x.offset < y.offset + y.len && y.offset < x.offset + x.len &&
          x.count + y.count > p_->pools[x.pool].capacity)
        return true;
  return false;
}

int64_t modulo_state::g3_skip_up(uint32_t v, int64_t t) const {
  if (wraps(v))
    return 1;
  const run* r = blocking_run(v, t);
  if (!r)
    return 1;
  // The run meets its last full slot at offset q until the start passes it.
  const int64_t q =
    mrt_.last_full(r->pool, static_cast<uint32_t>(mod(t + r->offset, ii_)), r->len, r->count);
  return std::max<int64_t>(1, q + 1);
}

int64_t modulo_state::g3_skip_down(uint32_t v, int64_t t) const {
  if (wraps(v))
    return 1;
  const run* r = blocking_run(v, t);
  if (!r)
    return 1;
  const int64_t q =
    mrt_.first_full(r->pool, static_cast<uint32_t>(mod(t + r->offset, ii_)), r->len, r->count);
  return q >= 0 ? std::max<int64_t>(1, static_cast<int64_t>(r->len) - q) : 1;
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
  return window_from(v, estart(v), lstart(v), group_depth(v));
}
std::pair<int64_t, int64_t> modulo_state::window_from(uint32_t v, int64_t es,
                                                      std::optional<int64_t> ls,
                                                      std::optional<int64_t> d) const {
  const auto ii = static_cast<int64_t>(ii_);
  int64_t lo = es;
  int64_t hi = lo + ii - 1;
  if (ls)
    hi = std::min(hi, *ls);
  if (d) { // the group's committed depth row
    lo = std::max(lo, *d * ii);
    hi = *d * ii + ii - 1; // the row may lie past Estart+II−1
    if (ls)
      hi = std::min(hi, *ls);
  }
  if (!deadline_.empty())
    hi = std::min(hi, deadline_[v]);
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
  const int64_t es = estart(v);
  const auto gd = group_depth(v);
  const auto [lo, hi] = window_from(v, es, lstart(v), gd);
  probe_result r;
  r.stopped = gate::g3_resource; // an empty window reads as "no free cycle"
  r.cycle = lo;
  if (gd && *gd < depth_of(es)) {
    // The group sits at a depth this op can no longer reach: G1 and G2 still
    // come first; otherwise G4 asks the caller to reorder the group.
    const gate g = admit(v, es);
    r.cycle = es;
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
      case gate::g3_resource: {
        // Every cycle up to the skip is a G3 bump too (G1 and G2 would pass
        // there: stop at the first depth past max_depth, and at the window).
        int64_t next = std::min(t + g3_skip_up(v, t), hi + 1);
        if (const auto& md = p_->ops[v].max_depth)
          next = std::min(next, (static_cast<int64_t>(*md) + 1) * static_cast<int64_t>(ii_));
        next = std::max(next, t + 1);
        stats->g3_bump_cycle += count ? static_cast<uint64_t>(next - t) : 0;
        r.cycle = next - 1;
        t = next - 1;
        break;
      }
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
  uint64_t pressure = 0;
  if (!wraps(v))
    for (const auto& r : fp_->ops[v].runs)
      pressure += mrt_.pressure(r.pool, static_cast<uint32_t>(mod(t + r.offset, ii_)), r.len,
                                r.count);
  else
    for (const auto& r : fp_->ops[v].runs)
      for_pieces(r, t, ii_, [&](uint32_t at, uint32_t n) {
        pressure += mrt_.pressure(r.pool, at, n, r.count);
      });
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
  blocked_.run = -1;
  if (!wraps(v)) { // every run within II: one range each
    const auto base = static_cast<uint32_t>(mod(t, ii_));
    for (const auto& r : fp_->ops[v].runs) {
      const uint32_t at = base + r.offset >= ii_ ? base + r.offset - ii_ : base + r.offset;
      if (sign > 0)
        mrt_.add(r.pool, at, r.len, r.count);
      else
        mrt_.remove(r.pool, at, r.len, r.count);
    }
    return;
  }
  for (const auto& r : fp_->ops[v].runs)
    for_pieces(r, t, ii_, [&](uint32_t at, uint32_t n) {
      if (sign > 0)
        mrt_.add(r.pool, at, n, r.count);
      else
        mrt_.remove(r.pool, at, n, r.count);
    });
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

std::vector<uint32_t> modulo_state::unseat_resource_conflicts(uint32_t v, int64_t t) {
  // Lift seated ops in program order until `v` fits (deterministic, minimal
  // for the common single conflict); they stay lifted, the caller evicts.
  std::vector<uint32_t> out;
  bool room = fits(v, t); // probed again only when the table changes
  for (uint32_t w = 0; w < seat_.size() && !room; ++w) {
    if (w == v || !seat_[w])
      continue;
    const auto& mine = fp_->ops[v].pools;
    const auto& theirs = fp_->ops[w].pools;
    std::size_t i = 0, j = 0;
    bool shares = false;
    while (!shares && i < mine.size() && j < theirs.size()) {
      if (mine[i] == theirs[j])
        shares = true;
      else
        (mine[i] < theirs[j] ? i : j)++;
    }
    if (!shares)
      continue;
    apply(w, *seat_[w], -1);
    seat_[w].reset();
    --seated_count_;
    out.push_back(w);
    room = fits(v, t);
  }
  if (!out.empty())
    blocked_.run = -1; // as after any change of the table
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
