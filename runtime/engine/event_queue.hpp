#pragma once
// A node's event queue (mailbox delivery, and tests): the keys in a
// key_heap, the events in a slab of their own.

#include "runtime/engine/event_slab.hpp"
#include "runtime/engine/key_heap.hpp"

namespace kb {

class event_queue {
public:
  bool empty() const { return keys_.empty(); }
  size_t size() const { return keys_.size(); }
  /// Time and key of the earliest event (the queue must not be empty).
  SimTime top_time() const { return keys_.top_time(); }
  event_key top_key() const { return keys_.top_key(); }

  /// Adds `ev`; true if it is now the earliest event.
  bool push(sim_event ev) {
    const event_key k = ev.key();
    return keys_.push(k, slab_.put(std::move(ev)));
  }
  /// Removes and returns the earliest event by (time, sender, sequence).
  sim_event pop() {
    const uint32_t slot = keys_.pop();
    // The next top is most likely the next event handled: start fetching it
    // while this one is handled.
    if (!keys_.empty())
      slab_.prefetch(keys_.top_slot());
    return slab_.take(slot);
  }

private:
  key_heap keys_;
  event_slab slab_;
};

} // namespace kb
