#include "runtime/schedule/mii.hpp"

#include <algorithm>
#include <deque>
#include <limits>

namespace kb::sched {

namespace {

/// Strongly connected components (Kosaraju, iterative) restricted to the ops
/// that lie on some cycle: components of two or more ops, or one op with a
/// self edge.
std::vector<std::vector<uint32_t>> recurrences(const dep_graph& g) {
  const auto n = static_cast<uint32_t>(g.size());
  std::vector<uint32_t> finish;
  std::vector<bool> seen(n, false);
  std::vector<std::pair<uint32_t, std::size_t>> stack;
  for (uint32_t r = 0; r < n; ++r) {
    if (seen[r])
      continue;
    seen[r] = true;
    stack.push_back({r, 0});
    while (!stack.empty()) {
      auto& [v, i] = stack.back();
      if (i == g.succs(v).size()) {
        finish.push_back(v);
        stack.pop_back();
        continue;
      }
      const uint32_t w = g.edge(g.succs(v)[i++]).to;
      if (!seen[w]) {
        seen[w] = true;
        stack.push_back({w, 0});
      }
    }
  }
  std::vector<int32_t> comp(n, -1);
  std::vector<std::vector<uint32_t>> out;
  std::vector<uint32_t> work;
  for (auto it = finish.rbegin(); it != finish.rend(); ++it) {
    if (comp[*it] >= 0)
      continue;
    const auto id = static_cast<int32_t>(out.size());
    std::vector<uint32_t> members;
    work.push_back(*it);
    comp[*it] = id;
    while (!work.empty()) {
      const uint32_t v = work.back();
      work.pop_back();
      members.push_back(v);
      for (uint32_t e : g.preds(v)) {
        const uint32_t u = g.edge(e).from;
        if (comp[u] < 0) {
          comp[u] = id;
          work.push_back(u);
        }
      }
    }
    bool cyclic = members.size() > 1;
    for (uint32_t e : g.succs(members.front()))
      cyclic = cyclic || g.edge(e).to == members.front();
    std::sort(members.begin(), members.end());
    if (cyclic)
      out.push_back(std::move(members));
    else
      out.emplace_back(); // keep ids aligned; dropped below
  }
  std::erase_if(out, [](const auto& c) { return c.empty(); });
  return out;
}

/// True when no cycle inside `scc` has positive weight latency − distance·II:
/// queue-based Bellman–Ford longest paths from a virtual source to every op of
/// the component. A path of k edges among k ops repeats one, so an op whose
/// best path grows to k edges lies behind a positive cycle. Each probe costs
/// O(E) per pass and far fewer passes than ops in practice, against the
/// O(k³) of a Floyd–Warshall closure.
bool feasible(const dep_graph& g, const std::vector<uint32_t>& scc,
              const std::vector<int32_t>& local, int64_t ii, std::vector<int64_t>& dist,
              std::vector<uint32_t>& len, std::deque<uint32_t>& queue,
              std::vector<bool>& queued) {
  const std::size_t k = scc.size();
  dist.assign(k, 0);
  len.assign(k, 0);
  queued.assign(k, true);
  queue.clear();
  for (std::size_t i = 0; i < k; ++i)
    queue.push_back(static_cast<uint32_t>(i));
  while (!queue.empty()) {
    const uint32_t i = queue.front();
    queue.pop_front();
    queued[i] = false;
    for (uint32_t e : g.succs(scc[i])) {
      const auto& ed = g.edge(e);
      const int32_t j = local[ed.to];
      if (j < 0)
        continue;
      const int64_t cand = dist[i] + ed.latency - static_cast<int64_t>(ed.distance) * ii;
      if (cand <= dist[static_cast<std::size_t>(j)])
        continue;
      dist[static_cast<std::size_t>(j)] = cand;
      len[static_cast<std::size_t>(j)] = len[i] + 1;
      if (len[static_cast<std::size_t>(j)] >= k)
        return false;
      if (!queued[static_cast<std::size_t>(j)]) {
        queued[static_cast<std::size_t>(j)] = true;
        queue.push_back(static_cast<uint32_t>(j));
      }
    }
  }
  return true;
}

} // namespace

uint32_t compute_res_mii(const problem& p) {
  uint32_t res = 1;
  std::vector<uint64_t> use(p.pools.size(), 0);
  for (const auto& op : p.ops)
    for (const auto& cycle : op.reservation)
      for (const auto& u : cycle)
        use[u.pool] += u.count;
  for (std::size_t i = 0; i < use.size(); ++i) {
    const uint64_t cap = p.pools[i].capacity;
    res = std::max<uint32_t>(res, static_cast<uint32_t>((use[i] + cap - 1) / cap));
  }
  return res;
}

mii_bounds compute_mii(const problem& p, const dep_graph& g) {
  mii_bounds b;
  b.res_mii = compute_res_mii(p);
  if (!g.zero_distance_cycle().empty())
    return b;
  uint32_t rec = 1;
  std::vector<int64_t> dist;
  std::vector<uint32_t> len;
  std::deque<uint32_t> queue;
  std::vector<bool> queued;
  std::vector<int32_t> local(g.size(), -1);
  for (const auto& scc : recurrences(g)) {
    for (std::size_t i = 0; i < scc.size(); ++i)
      local[scc[i]] = static_cast<int32_t>(i);
    auto ok = [&](int64_t ii) { return feasible(g, scc, local, ii, dist, len, queue, queued); };
    int64_t hi = 1;
    for (uint32_t v : scc)
      for (uint32_t e : g.succs(v))
        hi += std::max<int64_t>(0, g.edge(e).latency);
    int64_t lo = rec; // only IIs above the current bound can matter
    if (!ok(lo)) {
      while (lo + 1 < hi) { // invariant: lo infeasible, hi feasible
        const int64_t mid = lo + (hi - lo) / 2;
        (ok(mid) ? hi : lo) = mid;
      }
      rec = static_cast<uint32_t>(hi);
    }
    for (uint32_t v : scc)
      local[v] = -1;
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

uint32_t serial_ii_bound(const problem& p, const dep_graph& g) {
  uint64_t sum = 0;
  for (uint32_t v = 0; v < p.ops.size(); ++v) {
    int64_t w = std::max<int64_t>(1, static_cast<int64_t>(p.ops[v].reservation.size()));
    for (uint32_t e : g.succs(v))
      w = std::max(w, g.edge(e).latency);
    sum += static_cast<uint64_t>(w);
  }
  return static_cast<uint32_t>(std::max<uint64_t>(sum, 1));
}

} // namespace kb::sched
