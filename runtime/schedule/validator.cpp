// The independent schedule validator. It deliberately shares no code with the
// generators: MII is recomputed from resource sums and a Bellman–Ford search,
// and the modulo reservation table is rebuilt from the seats.

#include "runtime/schedule/validator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

namespace kb::sched {

namespace {

// -- overflow-safe arithmetic --------------------------------------------------

/// Path lengths are kept within ±k_big; reaching it counts as unbounded.
constexpr int64_t k_big = int64_t{1} << 62;

int64_t clamp_big(int64_t v) { return std::clamp(v, -k_big, k_big); }

int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? k_big : -k_big;
  return clamp_big(r);
}

int64_t sat_sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? k_big : -k_big;
  return clamp_big(r);
}

/// latency − distance·II, clamped to ±k_big.
int64_t edge_weight(int64_t latency, uint32_t distance, uint64_t ii) {
  const uint64_t prod = uint64_t{distance} * ii; // both < 2^32: no overflow
  if (prod >= static_cast<uint64_t>(k_big))
    return -k_big;
  return sat_add(clamp_big(latency), -static_cast<int64_t>(prod));
}

/// Non-negative remainder of t mod ii (ii ≥ 1).
uint64_t pmod(int64_t t, uint32_t ii) {
  const int64_t r = t % static_cast<int64_t>(ii);
  return static_cast<uint64_t>(r < 0 ? r + ii : r);
}

/// Floor division t div ii (ii ≥ 1).
int64_t fdiv(int64_t t, uint32_t ii) {
  const int64_t q = t / static_cast<int64_t>(ii);
  return (t % static_cast<int64_t>(ii) < 0) ? q - 1 : q;
}

bool edge_in_range(const problem& p, const edge_spec& e) {
  return e.from < p.ops.size() && e.to < p.ops.size();
}

// -- MII ------------------------------------------------------------------------

/// True when the graph has a cycle of positive weight, where `weight(e)` is
/// an edge's weight or nullopt to leave it out (Bellman–Ford longest paths
/// from a virtual source).
template <class Weight> bool has_positive_cycle(const problem& p, Weight weight) {
  const std::size_t n = p.ops.size();
  std::vector<int64_t> dist(n, 0);
  for (std::size_t pass = 0; pass <= n; ++pass) {
    bool changed = false;
    for (const auto& e : p.edges) {
      const std::optional<int64_t> w = weight(e);
      if (!w || !edge_in_range(p, e))
        continue;
      const int64_t cand = sat_add(dist[e.from], *w);
      if (cand > dist[e.to]) {
        if (cand >= k_big)
          return true; // unbounded in practice
        dist[e.to] = cand;
        changed = true;
      }
    }
    if (!changed)
      return false;
  }
  return true; // still relaxing after n passes
}

/// True when latency − distance·II leaves a positive cycle.
bool infeasible_ii(const problem& p, uint32_t ii) {
  return has_positive_cycle(p, [ii](const edge_spec& e) -> std::optional<int64_t> {
    return edge_weight(e.latency, e.distance, ii);
  });
}

/// True when the distance-0 edges alone form a cycle (self-loops included,
/// whatever their latency): weight 1 on each of them makes it positive.
bool has_zero_distance_cycle(const problem& p) {
  return has_positive_cycle(p, [](const edge_spec& e) -> std::optional<int64_t> {
    return e.distance == 0 ? std::optional<int64_t>(1) : std::nullopt;
  });
}

std::optional<uint32_t> compute_rec_mii(const problem& p) {
  if (has_zero_distance_cycle(p))
    return std::nullopt;
  // Every cycle has an edge of distance ≥ 1, so II = 1 + Σ latency is enough.
  int64_t sum = 1;
  for (const auto& e : p.edges)
    sum = sat_add(sum, std::max<int64_t>(e.latency, 0));
  uint32_t hi = static_cast<uint32_t>(
    std::min<int64_t>(sum, std::numeric_limits<uint32_t>::max()));
  uint32_t lo = 1;
  if (infeasible_ii(p, hi))
    return hi; // only for absurd latencies: II does not fit in 32 bits
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (infeasible_ii(p, mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

uint32_t compute_res_mii(const problem& p) {
  std::vector<uint64_t> total(p.pools.size(), 0);
  for (const auto& op : p.ops) {
    for (const auto& cycle : op.reservation)
      for (const auto& use : cycle)
        if (use.pool < total.size())
          total[use.pool] += use.count;
    for (const auto& h : op.holds)
      if (h.pool < total.size())
        total[h.pool] += uint64_t{h.count} * h.cycles;
  }
  uint64_t res = 1;
  for (std::size_t k = 0; k < total.size(); ++k) {
    const uint64_t cap = std::max<uint32_t>(p.pools[k].capacity, 1);
    res = std::max(res, (total[k] + cap - 1) / cap);
  }
  return static_cast<uint32_t>(std::min<uint64_t>(res, std::numeric_limits<uint32_t>::max()));
}

// -- checks -----------------------------------------------------------------------

using violations = std::vector<std::string>;

/// Orders must be a permutation of 0..n−1; returns whether they are.
bool check_orders(const problem& p, const schedule_analysis& a, violations& out) {
  const std::size_t n = p.ops.size();
  std::vector<std::optional<uint32_t>> holder(n);
  bool ok = true;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t o = a.seats[i].order;
    if (o >= n) {
      out.push_back(fmt::format("op '{}': order {} is out of range (ops: {})",
                                p.ops[i].name, o, n));
      ok = false;
    } else if (holder[o]) {
      out.push_back(fmt::format("order {} is given to both op '{}' and op '{}'", o,
                                p.ops[*holder[o]].name, p.ops[i].name));
      ok = false;
    } else {
      holder[o] = i;
    }
  }
  for (std::size_t o = 0; o < n; ++o)
    if (!holder[o]) {
      out.push_back(fmt::format("order {} is given to no op", o));
      ok = false;
    }
  return ok;
}

/// a.edges must be p.edges.
void check_edges_match(const problem& p, const schedule_analysis& a, violations& out) {
  if (a.edges.size() != p.edges.size()) {
    out.push_back(fmt::format("the analysis has {} edges but the problem has {}",
                              a.edges.size(), p.edges.size()));
    return;
  }
  for (std::size_t k = 0; k < p.edges.size(); ++k) {
    const auto& x = a.edges[k];
    const auto& y = p.edges[k];
    if (x.from != y.from || x.to != y.to || x.latency != y.latency || x.distance != y.distance)
      out.push_back(fmt::format(
        "edge #{}: the analysis has {} latency {}, the problem {} latency {}", k,
        p.describe(x), x.latency, p.describe(y), y.latency));
  }
}

/// Modulo reservation table: every (slot, pool) within capacity.
void check_table(const problem& p, const std::vector<int64_t>& t, uint32_t ii,
                 violations& out) {
  struct cell {
    uint64_t use = 0;
    std::vector<uint32_t> ops;
  };
  std::map<std::pair<uint64_t, uint32_t>, cell> table;
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    auto take = [&](std::size_t c, uint32_t pool, uint32_t count) {
      if (pool >= p.pools.size() || count == 0)
        return;
      const uint64_t slot = (pmod(t[i], ii) + c % ii) % ii;
      cell& cl = table[{slot, pool}];
      cl.use += count;
      if (std::find(cl.ops.begin(), cl.ops.end(), i) == cl.ops.end())
        cl.ops.push_back(i);
    };
    const auto& res = p.ops[i].reservation;
    for (std::size_t c = 0; c < res.size(); ++c)
      for (const auto& use : res[c])
        take(c, use.pool, use.count);
    for (const auto& h : p.ops[i].holds)
      for (std::size_t c = 0; c < h.cycles; ++c)
        take(c, h.pool, h.count);
  }
  for (const auto& [key, cl] : table) {
    const auto& pool = p.pools[key.second];
    if (cl.use <= pool.capacity)
      continue;
    std::string names;
    for (uint32_t i : cl.ops)
      names.append(names.empty() ? "" : ", ").append(p.ops[i].name);
    out.push_back(fmt::format("slot {} pool '{}': use {} > capacity {} (ops {})", key.first,
                              pool.name, cl.use, pool.capacity, names));
  }
}

/// Same-depth groups: union-find over gid values.
void check_groups(const problem& p, const std::vector<int64_t>& depth, violations& out) {
  std::map<int64_t, int64_t> parent;
  auto find = [&parent](int64_t x) {
    parent.try_emplace(x, x);
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  for (const auto& op : p.ops)
    if (op.gid && op.leader_gid)
      parent[find(*op.gid)] = find(*op.leader_gid);
  std::map<int64_t, uint32_t> first; // group root → first op (program order)
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    const auto& op = p.ops[i];
    const std::optional<int64_t> key = op.gid ? op.gid : op.leader_gid;
    if (!key)
      continue;
    auto [it, fresh] = first.try_emplace(find(*key), i);
    const uint32_t f = it->second;
    if (!fresh && depth[f] != depth[i]) {
      const auto& fo = p.ops[f];
      out.push_back(fmt::format(
        "same-depth group of gid {}: op '{}' has depth {} but op '{}' has depth {}",
        fo.gid ? *fo.gid : *fo.leader_gid, fo.name, depth[f], op.name, depth[i]));
    }
  }
}

void check_modulo(const problem& p, const schedule_analysis& a, const validation& v,
                  bool orders_ok, violations& out) {
  if (!a.ii || *a.ii == 0) {
    out.push_back(a.ii ? "II is 0" : "the modulo schedule has no II");
    return;
  }
  const uint32_t ii = *a.ii;
  if (!v.mii)
    out.push_back(fmt::format("II {} but the problem has a zero-distance dependence cycle "
                              "(no finite MII)",
                              ii));
  else if (ii < *v.mii)
    out.push_back(fmt::format("II {} < MII {} (ResMII {}, RecMII {})", ii, *v.mii, v.res_mii,
                              *v.rec_mii));

  const std::size_t n = p.ops.size();
  bool all_placed = true;
  for (std::size_t i = 0; i < n; ++i) {
    const op_seat& s = a.seats[i];
    for (auto [missing, field] : {std::pair{!s.cycle, "cycle"}, std::pair{!s.slot, "slot"},
                                  std::pair{!s.depth, "depth"}})
      if (missing)
        out.push_back(fmt::format("op '{}': no {} on the modulo path", p.ops[i].name, field));
    all_placed = all_placed && s.cycle;
    if (s.cycle && *s.cycle < 0)
      out.push_back(fmt::format("op '{}': cycle {} is negative", p.ops[i].name, *s.cycle));
  }
  if (!all_placed)
    return;

  std::vector<int64_t> t(n);
  std::vector<int64_t> depth(n);
  for (std::size_t i = 0; i < n; ++i) {
    t[i] = *a.seats[i].cycle;
    depth[i] = fdiv(t[i], ii);
  }

  for (const auto& e : a.edges) {
    if (!edge_in_range(p, e)) {
      out.push_back(fmt::format("edge {} names an op that does not exist", p.describe(e)));
      continue;
    }
    const int64_t bound = sat_add(t[e.from], edge_weight(e.latency, e.distance, ii));
    if (t[e.to] < bound)
      out.push_back(fmt::format("edge {}: t({})={} < t({})+{}-{}*II = {}", p.describe(e),
                                p.ops[e.to].name, t[e.to], p.ops[e.from].name, e.latency,
                                e.distance, bound));
  }

  check_table(p, t, ii, out);

  const int64_t t_min = n ? *std::min_element(t.begin(), t.end()) : 0;
  for (std::size_t i = 0; i < n; ++i) {
    const op_seat& s = a.seats[i];
    const std::string& name = p.ops[i].name;
    const int64_t stage = fdiv(sat_sub(t[i], t_min), ii);
    if (s.stage != stage)
      out.push_back(fmt::format("op '{}': stage {} but (t - t_min) div II = ({} - {}) div {} = {}",
                                name, s.stage, t[i], t_min, ii, stage));
    const uint64_t slot = pmod(t[i], ii);
    if (s.slot && *s.slot != slot)
      out.push_back(fmt::format("op '{}': slot {} but t mod II = {} mod {} = {}", name, *s.slot,
                                t[i], ii, slot));
    if (s.depth && *s.depth != depth[i])
      out.push_back(fmt::format("op '{}': depth {} but t div II = {} div {} = {}", name,
                                *s.depth, t[i], ii, depth[i]));
    if (p.ops[i].max_depth && depth[i] > *p.ops[i].max_depth)
      out.push_back(fmt::format("op '{}': depth {} exceeds max_depth {}", name, depth[i],
                                *p.ops[i].max_depth));
  }

  check_groups(p, depth, out);

  if (!orders_ok)
    return;
  std::vector<uint32_t> sorted(n);
  std::iota(sorted.begin(), sorted.end(), 0u);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&t](uint32_t x, uint32_t y) { return t[x] < t[y]; });
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = sorted[k];
    if (a.seats[i].order != k)
      out.push_back(fmt::format("op '{}': order {}, expected {} (sorted by cycle, then "
                                "program order)",
                                p.ops[i].name, a.seats[i].order, k));
  }
}

void check_serial(const problem& p, const schedule_analysis& a, bool orders_ok,
                  violations& out) {
  const std::size_t n = p.ops.size();
  for (std::size_t i = 0; i < n; ++i)
    if (a.seats[i].stage != 0)
      out.push_back(fmt::format("op '{}': stage {} on the serial path (must be 0)",
                                p.ops[i].name, a.seats[i].stage));
  if (!orders_ok)
    return;
  for (const auto& e : a.edges) {
    if (!edge_in_range(p, e)) {
      out.push_back(fmt::format("edge {} names an op that does not exist", p.describe(e)));
      continue;
    }
    const uint32_t of = a.seats[e.from].order;
    const uint32_t ot = a.seats[e.to].order;
    if (e.distance == 0 && ot <= of)
      out.push_back(fmt::format("edge {}: '{}' at order {} is not after '{}' at order {}",
                                p.describe(e), p.ops[e.to].name, ot, p.ops[e.from].name, of));
  }
  // Replays Kahn's walk with the ready op of least program index first.
  std::vector<uint32_t> at(n);
  for (uint32_t i = 0; i < n; ++i)
    at[a.seats[i].order] = i;
  std::vector<bool> placed(n, false);
  for (uint32_t k = 0; k < n; ++k) {
    std::optional<uint32_t> expected;
    for (uint32_t c = 0; c < n && !expected; ++c) {
      if (placed[c])
        continue;
      bool ready = true;
      for (const auto& e : a.edges)
        if (e.distance == 0 && edge_in_range(p, e) && e.to == c && !placed[e.from])
          ready = false;
      if (ready)
        expected = c;
    }
    const uint32_t actual = at[k];
    if (!expected)
      out.push_back(fmt::format("order {}: op '{}' is placed but no op is ready "
                                "(a zero-distance dependence cycle)",
                                k, p.ops[actual].name));
    else if (*expected != actual)
      out.push_back(fmt::format("order {}: op '{}' is placed, but the earliest ready op in "
                                "program order is '{}'",
                                k, p.ops[actual].name, p.ops[*expected].name));
    placed[actual] = true;
  }
}

} // namespace

validation independent_mii(const problem& p) {
  validation v;
  v.res_mii = compute_res_mii(p);
  v.rec_mii = compute_rec_mii(p);
  if (v.rec_mii)
    v.mii = std::max(v.res_mii, *v.rec_mii);
  v.ok = true;
  return v;
}

validation validate_schedule(const problem& p, const schedule_analysis& a) {
  validation v = independent_mii(p);
  violations& out = v.violations;
  if (!a.success) {
    std::string why;
    for (const auto& d : a.diagnostics)
      if (d.severity == diagnostic::level::error) {
        why = fmt::format(": {}", d.message);
        break;
      }
    out.push_back(fmt::format("the schedule failed{}", why));
  } else if (a.seats.size() != p.ops.size()) {
    out.push_back(fmt::format("{} seats for {} ops", a.seats.size(), p.ops.size()));
  } else {
    const bool orders_ok = check_orders(p, a, out);
    check_edges_match(p, a, out);
    if (a.mii && (a.mii != v.mii || a.res_mii != v.res_mii || a.rec_mii != v.rec_mii))
      out.push_back(fmt::format(
        "the generator reports MII {} (ResMII {}, RecMII {}) but it is {} (ResMII {}, RecMII {})",
        a.mii ? fmt::format("{}", *a.mii) : "inf", a.res_mii,
        a.rec_mii ? fmt::format("{}", *a.rec_mii) : "inf", v.mii ? fmt::format("{}", *v.mii) : "inf",
        v.res_mii, v.rec_mii ? fmt::format("{}", *v.rec_mii) : "inf"));
    if (a.used == strategy::serial)
      check_serial(p, a, orders_ok, out);
    else if (a.used == strategy::cost)
      check_modulo(p, a, v, orders_ok, out);
    else
      out.push_back(fmt::format("the analysis names strategy '{}', not serial or cost",
                                to_string(a.used)));
  }
  v.ok = out.empty();
  return v;
}

} // namespace kb::sched
