#pragma once
// The upper level of a shard's two-level event queue (ADR-0016): a 4-ary
// min-heap of the shard's nodes keyed by the key (time, sender, sequence)
// of each node's earliest pending event, with every node's position kept
// so that a key can be lowered in place. Each node's event keys are in a
// key_heap of its own: a pop touches this small heap of nodes (384 KiB for
// 16,384 nodes) and one node's short key heap, instead of one shard-wide
// heap of every pending event.

#include "runtime/engine/event.hpp"

#include <algorithm>
#include <vector>

namespace kb {

class node_heap {
public:
  /// Node numbers below `nodes` may be entered (the shard loop's local
  /// numbers, so that its size follows the shard, not the machine).
  explicit node_heap(size_t nodes) : pos_(nodes, absent) {}

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  bool contains(node_id n) const { return pos_[n] != absent; }
  /// The node with the smallest key, and that key's time (not empty).
  node_id top() const { return heap_.front().node; }
  SimTime top_time() const { return heap_.front().t; }
  /// The smallest time of any node but the top (infinity if none): the
  /// second smallest key is one of the top's children.
  SimTime second_time() const {
    const size_t n = std::min<size_t>(heap_.size(), 5);
    SimTime t = SimTime::infinity();
    for (size_t c = 1; c < n; ++c)
      t = std::min(t, heap_[c].t);
    return t;
  }

  /// Enters `n` (not present) with key `k`.
  void insert(node_id n, const event_key& k);
  /// Lowers the key of `n` (present) to `k` if `k` is below it.
  void lower(node_id n, const event_key& k);
  /// Gives the top node the key `k` (any value) and restores the order.
  void replace_top(const event_key& k);
  /// Removes the top node.
  void pop_top();

private:
  static constexpr uint32_t absent = ~uint32_t{0};
  struct entry {
    SimTime t;
    uint64_t seq;
    node_id src;
    node_id node;
  };
  /// Stores an entry and notes its node's position.
  struct place {
    node_heap& h;
    void operator()(size_t i, const entry& e) const {
      h.heap_[i] = e;
      h.pos_[e.node] = static_cast<uint32_t>(i);
    }
  };

  std::vector<entry> heap_;
  std::vector<uint32_t> pos_; ///< per node id: index in heap_, or absent
};

} // namespace kb
