#pragma once
// A node's (or a shard's) event queue: a 4-ary min-heap of small keys
// (time, sender, sequence, slot) over a slab of events, so that sifting moves
// 24 bytes instead of whole 72-byte events, and a pop touches half as many
// levels as in a binary heap (the four children of a key share a cache
// line or two). Keys are unique, so the pop order is the key order whatever
// the heap's shape.

#include "runtime/engine/event.hpp"

#include <vector>

namespace kb {

class event_queue {
public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  /// Time of the earliest event (the queue must not be empty).
  SimTime top_time() const { return heap_.front().t; }
  /// Key of the earliest event (the queue must not be empty).
  event_key top_key() const {
    const entry& e = heap_.front();
    return {e.t, e.src, e.seq};
  }

  /// Adds `ev`; true if it is now the earliest event.
  bool push(sim_event ev);
  /// Removes and returns the earliest event by (time, sender, sequence).
  sim_event pop();

private:
  size_t sift_up(size_t i);
  void sift_down(size_t i);

  struct entry {
    SimTime t;
    uint64_t seq;
    node_id src;
    uint32_t slot;
  };
  /// Heap order: true when `a` must come after `b` (the total event key).
  /// A type, not a function pointer, so that the heap algorithms inline it.
  struct after {
    bool operator()(const entry& a, const entry& b) const {
      if (a.t != b.t)
        return b.t < a.t;
      if (a.src != b.src)
        return b.src < a.src;
      return b.seq < a.seq;
    }
  };

  std::vector<entry> heap_;
  std::vector<sim_event> slots_;
  std::vector<uint32_t> free_;
};

} // namespace kb
