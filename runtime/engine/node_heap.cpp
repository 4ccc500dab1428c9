#include "runtime/engine/node_heap.hpp"

#include <algorithm>

namespace kb {

void node_heap::insert(node_id n, const event_key& k) {
  heap_.push_back({});
  sift_up(heap_.size() - 1, {k.t, k.seq, k.src, n});
}

void node_heap::lower(node_id n, const event_key& k) {
  const size_t i = pos_[n];
  const entry x{k.t, k.seq, k.src, n};
  if (before(x, heap_[i]))
    sift_up(i, x);
}

void node_heap::replace_top(const event_key& k) {
  sift_down(0, {k.t, k.seq, k.src, heap_.front().node});
}

void node_heap::pop_top() {
  pos_[heap_.front().node] = absent;
  const entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty())
    sift_down(0, last);
}

void node_heap::sift_up(size_t i, entry x) {
  while (i > 0) {
    const size_t parent = (i - 1) / 4;
    if (!before(x, heap_[parent]))
      break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, x);
}

void node_heap::sift_down(size_t i, entry x) {
  const size_t n = heap_.size();
  for (;;) {
    const size_t first = 4 * i + 1;
    if (first >= n)
      break;
    const size_t last = std::min(first + 4, n);
    size_t m = first;
    for (size_t c = first + 1; c < last; ++c)
      if (before(heap_[c], heap_[m]))
        m = c;
    if (!before(heap_[m], x))
      break;
    place(i, heap_[m]);
    i = m;
  }
  place(i, x);
}

} // namespace kb
