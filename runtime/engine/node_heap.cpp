#include "runtime/engine/node_heap.hpp"

#include "runtime/engine/quad_heap.hpp"

namespace kb {

void node_heap::insert(node_id n, const event_key& k) {
  heap_.push_back({});
  quad_heap::sift_up(heap_, heap_.size() - 1, entry{k.t, k.seq, k.src, n}, place{*this});
}

void node_heap::lower(node_id n, const event_key& k) {
  const size_t i = pos_[n];
  const entry x{k.t, k.seq, k.src, n};
  if (quad_heap::before(x, heap_[i]))
    quad_heap::sift_up(heap_, i, x, place{*this});
}

void node_heap::replace_top(const event_key& k) {
  quad_heap::sift_down(heap_, 0, entry{k.t, k.seq, k.src, heap_.front().node}, place{*this});
}

void node_heap::pop_top() {
  pos_[heap_.front().node] = absent;
  const entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty())
    quad_heap::sift_down(heap_, 0, last, place{*this});
}

} // namespace kb
