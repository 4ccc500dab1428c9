#pragma once
// Adjacency of a problem's dependence edges, shared by both generators.

#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace kb::sched {

class dep_graph {
public:
  explicit dep_graph(const problem& p);

  std::size_t size() const { return pred_start_.size() - 1; }
  /// Edge indices into `problem::edges` entering / leaving op `v`, ascending.
  std::span<const uint32_t> preds(uint32_t v) const {
    return {pred_edges_.data() + pred_start_[v], pred_start_[v + 1] - pred_start_[v]};
  }
  std::span<const uint32_t> succs(uint32_t v) const {
    return {succ_edges_.data() + succ_start_[v], succ_start_[v + 1] - succ_start_[v]};
  }
  const edge_spec& edge(uint32_t e) const { return (*edges_)[e]; }
  std::size_t edge_count() const { return edges_->size(); }

  /// Ops on one cycle of distance-0 edges, in cycle order starting at the
  /// smallest op index; empty when the distance-0 edges form a DAG.
  std::vector<uint32_t> zero_distance_cycle() const;

  /// Strongly connected components that lie on some cycle (two or more ops,
  /// or one op with a self edge), each sorted by op index. Found once, when
  /// the graph is built.
  const std::vector<std::vector<uint32_t>>& recurrences() const { return recurrences_; }

private:
  std::vector<std::vector<uint32_t>> find_recurrences() const;

  const std::vector<edge_spec>* edges_;
  // Compressed rows: op v's edges are [start[v], start[v + 1]) of the
  // array; two flat arrays, not a vector per op (a body has thousands).
  std::vector<uint32_t> pred_start_, pred_edges_;
  std::vector<uint32_t> succ_start_, succ_edges_;
  std::vector<std::vector<uint32_t>> recurrences_;
};

} // namespace kb::sched
