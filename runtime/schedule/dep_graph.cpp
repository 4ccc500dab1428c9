#include "runtime/schedule/dep_graph.hpp"

#include <algorithm>

namespace kb::sched {

namespace {

/// Counting sort of the edge indices by `end(edge)`: `start` gets n + 1
/// offsets, `out` the indices, ascending within each op.
template <class End>
void compress(const std::vector<edge_spec>& edges, std::size_t n, End end,
              std::vector<uint32_t>& start, std::vector<uint32_t>& out) {
  start.assign(n + 1, 0);
  for (const auto& e : edges)
    ++start[end(e) + 1];
  for (std::size_t v = 0; v < n; ++v)
    start[v + 1] += start[v];
  out.resize(edges.size());
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  for (uint32_t e = 0; e < edges.size(); ++e)
    out[next[end(edges[e])]++] = e;
}

} // namespace

dep_graph::dep_graph(const problem& p) : edges_(&p.edges) {
  compress(p.edges, p.ops.size(), [](const edge_spec& e) { return e.to; }, pred_start_,
           pred_edges_);
  compress(p.edges, p.ops.size(), [](const edge_spec& e) { return e.from; }, succ_start_,
           succ_edges_);
  recurrences_ = find_recurrences();
}

std::vector<uint32_t> dep_graph::zero_distance_cycle() const {
  // Iterative DFS colouring over distance-0 edges; the first back edge found
  // closes the cycle, read back from the DFS stack.
  const auto n = static_cast<uint32_t>(size());
  enum : uint8_t { white, grey, black };
  std::vector<uint8_t> colour(n, white);
  std::vector<std::pair<uint32_t, std::size_t>> stack; // (op, next succ index)
  for (uint32_t root = 0; root < n; ++root) {
    if (colour[root] != white)
      continue;
    stack.push_back({root, 0});
    colour[root] = grey;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == succs(v).size()) {
        colour[v] = black;
        stack.pop_back();
        continue;
      }
      const auto& e = edge(succs(v)[next++]);
      if (e.distance != 0)
        continue;
      if (colour[e.to] == grey) {
        std::vector<uint32_t> cycle;
        auto it = std::find_if(stack.begin(), stack.end(),
                               [&](const auto& f) { return f.first == e.to; });
        for (; it != stack.end(); ++it)
          cycle.push_back(it->first);
        std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
        return cycle;
      }
      if (colour[e.to] == white) {
        colour[e.to] = grey;
        stack.push_back({e.to, 0});
      }
    }
  }
  return {};
}

// Kosaraju, iterative.
std::vector<std::vector<uint32_t>> dep_graph::find_recurrences() const {
  const dep_graph& g = *this;
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
  std::vector<uint32_t> work, members; // members: reused, copied out when cyclic
  int32_t id = -1;
  for (auto it = finish.rbegin(); it != finish.rend(); ++it) {
    if (comp[*it] >= 0)
      continue;
    ++id;
    members.clear();
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
    if (cyclic) {
      std::sort(members.begin(), members.end());
      out.push_back(members);
    }
  }
  return out;
}

} // namespace kb::sched
