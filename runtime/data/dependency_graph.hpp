#pragma once
// Phase 2 dependency inference (seed ADR-0020 D5/D6): which ops must finish before
// which. The ops are taken in log order, stable-sorted by t_start; an op
// depends on every earlier op that
//   - wrote bytes it reads (RAW), or wrote bytes it writes (WAW), or
//   - read bytes it writes (WAR),
// and on its explicit `deps` (which may name any op of the log).
//
// Edges are kept in reduced form: per byte, an op depends on the last earlier
// writer and on the readers since that write. Every dependency above is then
// implied through a chain (an older writer precedes the last one by WAW, an
// older reader precedes it by WAR), so replaying the graph orders every
// conflicting pair exactly as the log does. (An edge to an older op may
// remain where the reduction is not worth finding; it is always a true
// conflict.)
//
// Overlap is decided per pair of views by views_overlap() (tensor.hpp):
// exact for contiguous views and for strided views of the same row stride,
// so tiles of one matrix whose bounding spans overlap but whose rows
// interleave (the tiles of one tile row) are independent. Strided views of
// different strides are compared row by row up to `max_row_checks` rows,
// beyond that by their spans: conservative, an edge they may not need.
//
// Earlier accesses are found through range maps (detail/access_index.hpp): one over
// bytes for contiguous views, one over rows per "band" of strided views
// (same stride, column offset and row length: one tile column of a matrix).
// Building costs O(ranges * log ranges), not quadratic, however many tiles a
// matrix row holds. Views must pass check_view().

#include "runtime/data/op_record.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace kb {

struct dependency_options {
  /// Strided views of different strides are compared row by row up to this
  /// many rows, beyond that conservatively.
  uint32_t max_row_checks = 256;
};

/// The dependency DAG of a log. Nodes are indices into the op vector given
/// to build().
class dependency_graph {
public:
  /// Builds the graph of `ops`. Throws std::runtime_error naming the op for a
  /// duplicate id, an unknown or self dependency, or a dependency cycle.
  static dependency_graph build(const std::vector<op_record>& ops,
                                const dependency_options& options = {});

  size_t size() const { return order_.size(); }
  /// Indices of the ops in log order (by t_start, then position).
  const std::vector<uint32_t>& order() const { return order_; }
  /// What op `i` waits for, ascending and without repeats.
  std::span<const uint32_t> preds(uint32_t i) const {
    return {pred_.data() + pred_at_[i], pred_.data() + pred_at_[i + 1]};
  }
  /// What waits for op `i`.
  std::span<const uint32_t> succs(uint32_t i) const {
    return {succ_.data() + succ_at_[i], succ_.data() + succ_at_[i + 1]};
  }
  uint64_t edges() const { return pred_.size(); }

private:
  std::vector<uint32_t> order_;
  std::vector<uint64_t> pred_at_, succ_at_;
  std::vector<uint32_t> pred_, succ_;
};

} // namespace kb
