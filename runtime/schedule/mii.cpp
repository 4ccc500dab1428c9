#include "runtime/schedule/mii.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>
#include <limits>

namespace kb::sched {

namespace {

/// A recurrence prepared for the positive-cycle test: its ops in topological
/// order of the distance-0 edges (they form a DAG once zero-distance cycles
/// are ruled out), its edges from each, and how many loop-carried edges it has.
struct recurrence {
  std::vector<uint32_t> order;                 ///< local indices, topological
  /// Edge indices leaving local op i: out[out_start[i] .. out_start[i + 1]).
  std::vector<uint32_t> out_start, out;
  std::vector<uint32_t> to;                    ///< local target per edge index
  std::vector<uint32_t> from;                  ///< local source per edge index
  uint32_t carried = 0;                        ///< edges with distance ≥ 1

  std::span<const uint32_t> edges_of(uint32_t i) const {
    return {out.data() + out_start[i], out_start[i + 1] - out_start[i]};
  }
};

recurrence prepare(const dep_graph& g, const std::vector<uint32_t>& scc,
                   std::vector<int32_t>& local) {
  recurrence r;
  const std::size_t k = scc.size();
  for (std::size_t i = 0; i < k; ++i)
    local[scc[i]] = static_cast<int32_t>(i);
  r.out_start.assign(k + 1, 0);
  r.to.assign(g.edge_count(), 0);
  r.from.assign(g.edge_count(), 0);
  std::vector<uint32_t> in(k, 0);
  for (std::size_t i = 0; i < k; ++i) {
    for (uint32_t e : g.succs(scc[i])) {
      const int32_t j = local[g.edge(e).to];
      if (j < 0)
        continue;
      r.out.push_back(e);
      r.to[e] = static_cast<uint32_t>(j);
      r.from[e] = static_cast<uint32_t>(i);
      if (g.edge(e).distance == 0)
        ++in[static_cast<std::size_t>(j)];
      else
        ++r.carried;
    }
    r.out_start[i + 1] = static_cast<uint32_t>(r.out.size());
  }
  for (std::size_t i = 0; i < k; ++i) // Kahn over the distance-0 edges
    if (in[i] == 0)
      r.order.push_back(static_cast<uint32_t>(i));
  for (std::size_t h = 0; h < r.order.size(); ++h)
    for (uint32_t e : r.edges_of(r.order[h]))
      if (g.edge(e).distance == 0 && --in[r.to[e]] == 0)
        r.order.push_back(r.to[e]);
  for (uint32_t v : scc)
    local[v] = -1;
  return r;
}

/// A cycle of the recurrence with positive weight latency − distance·II at
/// the II probed, as (Σ latency, Σ distance); nullopt when there is none.
/// Bellman–Ford longest paths from a virtual source, each round one pass over
/// the ops in topological order: a round carries a path along all its
/// distance-0 edges, so a simple path with c loop-carried edges is settled
/// after c + 1 rounds, and one still improving after carried + 1 rounds lies
/// behind a positive cycle — which the predecessor edges close (a cycle of
/// predecessors is always positive). O(E) per round; on pipelines the rounds
/// stop after a handful.
/// A cycle of the predecessor edges, as (Σ latency, Σ distance), or nullopt.
/// Such a cycle is always positive (each of its edges was taken on a strict
/// improvement), so the probe may stop as soon as one closes. O(k): each op is
/// walked once.
std::optional<std::pair<int64_t, int64_t>> predecessor_cycle(const dep_graph& g,
                                                             const recurrence& r,
                                                             const std::vector<int64_t>& pred,
                                                             std::vector<int64_t>& walk) {
  const std::size_t k = r.order.size();
  walk.assign(k, -1);
  const auto from = [&](std::size_t v) {
    return static_cast<std::size_t>(r.from[static_cast<std::size_t>(pred[v])]);
  };
  for (std::size_t start = 0; start < k; ++start) {
    std::size_t v = start;
    while (walk[v] < 0 && pred[v] >= 0) {
      walk[v] = static_cast<int64_t>(start);
      v = from(v);
    }
    if (walk[v] != static_cast<int64_t>(start) || pred[v] < 0)
      continue; // ran into an earlier walk, or into a root
    std::pair<int64_t, int64_t> sum{0, 0};
    std::size_t u = v;
    do {
      const auto& ed = g.edge(static_cast<uint32_t>(pred[u]));
      sum.first += ed.latency;
      sum.second += ed.distance;
      u = from(u);
    } while (u != v);
    return sum;
  }
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>> positive_cycle(const dep_graph& g,
                                                          const recurrence& r, int64_t ii,
                                                          std::vector<int64_t>& dist,
                                                          std::vector<int64_t>& pred,
                                                          std::vector<int64_t>& walk) {
  const std::size_t k = r.order.size();
  dist.assign(k, 0);
  pred.assign(k, -1);
  int64_t last = -1;
  for (uint32_t round = 0; round <= r.carried + 1; ++round) {
    last = -1;
    for (uint32_t i : r.order)
      for (uint32_t e : r.edges_of(i)) {
        const auto& ed = g.edge(e);
        const int64_t cand = dist[i] + ed.latency - static_cast<int64_t>(ed.distance) * ii;
        if (cand > dist[r.to[e]]) {
          dist[r.to[e]] = cand;
          pred[r.to[e]] = e;
          last = r.to[e];
        }
      }
    if (last < 0)
      return std::nullopt;
    // A positive cycle usually closes among the predecessors long before
    // the last round proves one: stop there.
    if (auto c = predecessor_cycle(g, r, pred, walk))
      return c;
  }
  // Walk the predecessors k steps back from an op still improving: that
  // lands on their cycle; then go round it once.
  auto from = [&](int64_t v) { return static_cast<int64_t>(r.from[static_cast<std::size_t>(pred[static_cast<std::size_t>(v)])]); };
  int64_t v = last;
  for (std::size_t i = 0; i < k && pred[static_cast<std::size_t>(v)] >= 0; ++i)
    v = from(v);
  std::pair<int64_t, int64_t> sum{0, 0};
  int64_t u = v;
  for (std::size_t i = 0; i <= k; ++i) {
    if (pred[static_cast<std::size_t>(u)] < 0)
      return std::pair<int64_t, int64_t>{ii + 1, 1}; // no cycle closed: step by one
    const auto& ed = g.edge(static_cast<uint32_t>(pred[static_cast<std::size_t>(u)]));
    sum.first += ed.latency;
    sum.second += ed.distance;
    u = from(u);
    if (u == v)
      return sum;
  }
  return std::pair<int64_t, int64_t>{ii + 1, 1};
}

} // namespace

uint32_t compute_res_mii(const problem& p) {
  uint32_t res = 1;
  std::vector<uint64_t> use(p.pools.size(), 0);
  for (const auto& op : p.ops) {
    for (const auto& cycle : op.reservation)
      for (const auto& u : cycle)
        use[u.pool] += u.count;
    for (const auto& h : op.holds)
      use[h.pool] += uint64_t{h.count} * h.cycles;
  }
  for (std::size_t i = 0; i < use.size(); ++i) {
    const uint64_t cap = p.pools[i].capacity;
    res = static_cast<uint32_t>(
      std::max<uint64_t>(res, std::min<uint64_t>((use[i] + cap - 1) / cap, UINT32_MAX)));
  }
  return res;
}

mii_bounds compute_mii(const problem& p, const dep_graph& g) {
  mii_bounds b;
  b.res_mii = compute_res_mii(p);
  if (!g.zero_distance_cycle().empty())
    return b;
  uint32_t rec = 1;
  std::vector<int64_t> dist, pred, walk;
  std::vector<int32_t> local(g.size(), -1);
  for (const auto& scc : g.recurrences()) {
    const recurrence r = prepare(g, scc, local);
    // Only IIs above the current bound can matter. Each positive cycle found
    // at a probe needs II ≥ ⌈Σ latency / Σ distance⌉, which is above the
    // probe: jump there. The first II without a positive cycle is RecMII.
    int64_t ii = rec;
    while (const auto cyc = positive_cycle(g, r, ii, dist, pred, walk))
      ii = std::max(ii + 1, (cyc->first + cyc->second - 1) / cyc->second);
    // Every recurrence's ratio is at most serial_length, which check_problem
    // bounds by max_schedule_cycles (periodic_cycle_time checks its own
    // bodies): the II fits.
    rec = static_cast<uint32_t>(ii);
  }
  b.rec_mii = rec;
  b.mii = std::max(b.res_mii, rec);
  return b;
}

schedule_analysis begin_analysis(const problem& p, const dep_graph& g, strategy used) {
  schedule_analysis a;
  a.used = used;
  a.edges = p.edges;
  a.seats.resize(p.ops.size());
  if (used == strategy::serial) { // no II: the cheap resource bound only
    a.res_mii = compute_res_mii(p);
    return a;
  }
  const auto bounds = compute_mii(p, g);
  a.res_mii = bounds.res_mii;
  a.rec_mii = bounds.rec_mii;
  a.mii = bounds.mii;
  return a;
}

uint32_t serial_ii_bound(const problem& p) {
  // check_problem bounds it by max_schedule_cycles.
  return static_cast<uint32_t>(std::min<uint64_t>(serial_length(p), max_schedule_cycles));
}

} // namespace kb::sched
