#include "runtime/engine/event_queue.hpp"

#include <algorithm>

namespace kb {

void event_queue::push(sim_event ev) {
  uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(std::move(ev));
  } else {
    slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(ev);
  }
  const sim_event& e = slots_[slot];
  heap_.push_back({e.t, e.seq, e.src, slot});
  std::push_heap(heap_.begin(), heap_.end(), after{});
}

sim_event event_queue::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), after{});
  const uint32_t slot = heap_.back().slot;
  heap_.pop_back();
  free_.push_back(slot);
  // The next top is most likely the next event handled: start fetching it
  // while this one is handled (a node's slots are usually cold in cache).
  if (!heap_.empty())
    __builtin_prefetch(&slots_[heap_.front().slot]);
  return std::move(slots_[slot]);
}

} // namespace kb
