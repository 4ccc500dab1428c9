#include "runtime/engine/event_queue.hpp"

#include <algorithm>

namespace kb {

bool event_queue::push(sim_event ev) {
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
  return sift_up(heap_.size() - 1) == 0;
}

size_t event_queue::sift_up(size_t i) {
  const entry x = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / 4;
    if (!after{}(heap_[parent], x))
      break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = x;
  return i;
}

void event_queue::sift_down(size_t i) {
  const size_t n = heap_.size();
  const entry x = heap_[i];
  for (;;) {
    const size_t first = 4 * i + 1;
    if (first >= n)
      break;
    const size_t last = std::min(first + 4, n);
    size_t m = first;
    for (size_t c = first + 1; c < last; ++c)
      if (after{}(heap_[m], heap_[c]))
        m = c;
    if (!after{}(x, heap_[m]))
      break;
    heap_[i] = heap_[m];
    i = m;
  }
  heap_[i] = x;
}

sim_event event_queue::pop() {
  const uint32_t slot = heap_.front().slot;
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty())
    sift_down(0);
  free_.push_back(slot);
  // The next top is most likely the next event handled: start fetching it
  // while this one is handled (a node's slots are usually cold in cache).
  if (!heap_.empty())
    __builtin_prefetch(&slots_[heap_.front().slot]);
  return std::move(slots_[slot]);
}

} // namespace kb
