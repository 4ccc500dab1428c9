#include "runtime/engine/key_heap.hpp"

#include <algorithm>

namespace kb {

bool key_heap::push(const event_key& k, uint32_t slot) {
  heap_.push_back({k.t, k.seq, k.src, slot});
  return sift_up(heap_.size() - 1) == 0;
}

uint32_t key_heap::pop() {
  const uint32_t slot = heap_.front().slot;
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty())
    sift_down(0);
  return slot;
}

size_t key_heap::sift_up(size_t i) {
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

void key_heap::sift_down(size_t i) {
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

} // namespace kb
