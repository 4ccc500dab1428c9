#pragma once
// A 4-ary min-heap of event keys (time, sender, sequence), each with the
// index of its event in a slab kept elsewhere: sifting moves 24 bytes
// instead of whole 72-byte events, and a pop touches half as many levels as
// in a binary heap (the four children of a key share a cache line or two).
// Keys are unique, so the pop order is the key order whatever the heap's
// shape (the sifts are quad_heap's). event_queue pairs one with its own
// slab; the shard loop keeps one per node over a slab shared by the shard.

#include "runtime/engine/event.hpp"

#include <vector>

namespace kb {

class key_heap {
public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  /// Time, key and slab index of the earliest event (not empty).
  SimTime top_time() const { return heap_.front().t; }
  event_key top_key() const {
    const entry& e = heap_.front();
    return {e.t, e.src, e.seq};
  }
  uint32_t top_slot() const { return heap_.front().slot; }

  /// Adds the key of the event in `slot`; true if it is now the earliest.
  bool push(const event_key& k, uint32_t slot);
  /// Removes the earliest key and returns its slot.
  uint32_t pop();

private:
  struct entry {
    SimTime t;
    uint64_t seq;
    node_id src;
    uint32_t slot;
  };
  struct place {
    std::vector<entry>& h;
    void operator()(size_t i, const entry& e) const { h[i] = e; }
  };

  std::vector<entry> heap_;
};

} // namespace kb
