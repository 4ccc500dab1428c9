#pragma once
// A node's (or a shard's) event queue: a 4-ary min-heap of small keys
// (time, sender, sequence, slot) over a slab of events, so that sifting moves
// 24 bytes instead of whole 72-byte events, and a pop touches half as many
// levels as in a binary heap (the four children of a key share a cache
// line or two). Keys are unique, so the pop order is the key order whatever
// the heap's shape.
//
// A pop leaves the root vacant until the next push or look: an event that
// schedules another (the common case) then costs one sift from the root
// (a "replace top") instead of a sift down to remove and a sift up to add.

#include "runtime/engine/event.hpp"

#include <vector>

namespace kb {

class event_queue {
public:
  bool empty() const {
    settle();
    return heap_.empty();
  }
  size_t size() const {
    settle();
    return heap_.size();
  }
  /// Time of the earliest event (the queue must not be empty).
  SimTime top_time() const {
    settle();
    return heap_.front().t;
  }


  void push(sim_event ev);
  /// Removes and returns the earliest event by (time, sender, sequence).
  sim_event pop();

private:
  /// Fills a vacant root (a pop not yet followed by a push) from the back.
  void settle() const {
    if (vacant_)
      remove_root();
  }
  void remove_root() const;
  void sift_up(size_t i);
  void sift_down(size_t i) const;

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

  // Mutable: a look (empty, top_time) first settles a vacant root, which
  // changes the heap's shape, never its contents.
  mutable std::vector<entry> heap_;
  mutable bool vacant_ = false; ///< heap_[0] is a popped event's stale entry
  std::vector<sim_event> slots_;
  std::vector<uint32_t> free_;
};

} // namespace kb
