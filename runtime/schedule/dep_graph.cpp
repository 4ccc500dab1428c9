#include "runtime/schedule/dep_graph.hpp"

#include <algorithm>

namespace kb::sched {

dep_graph::dep_graph(const problem& p)
  : edges_(&p.edges), preds_(p.ops.size()), succs_(p.ops.size()) {
  for (uint32_t e = 0; e < p.edges.size(); ++e) {
    succs_[p.edges[e].from].push_back(e);
    preds_[p.edges[e].to].push_back(e);
  }
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
      if (next == succs_[v].size()) {
        colour[v] = black;
        stack.pop_back();
        continue;
      }
      const auto& e = edge(succs_[v][next++]);
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

} // namespace kb::sched
