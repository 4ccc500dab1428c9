#include "runtime/engine/key_heap.hpp"

#include "runtime/engine/quad_heap.hpp"

namespace kb {

bool key_heap::push(const event_key& k, uint32_t slot) {
  heap_.push_back({});
  return quad_heap::sift_up(heap_, heap_.size() - 1, entry{k.t, k.seq, k.src, slot},
                            place{heap_}) == 0;
}

uint32_t key_heap::pop() {
  const uint32_t slot = heap_.front().slot;
  const entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty())
    quad_heap::sift_down(heap_, 0, last, place{heap_});
  return slot;
}

} // namespace kb
