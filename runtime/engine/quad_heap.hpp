#pragma once
// The sifts of a 4-ary min-heap over a vector of entries ordered by the
// event key (time, sender, sequence): shared by key_heap (a node's pending
// events) and node_heap (a shard's nodes). `place(i, e)` stores entry e at
// index i, so that a heap that tracks positions can note them.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kb::quad_heap {

/// The total event key order on any entry with t, src and seq.
template <class E>
bool before(const E& a, const E& b) {
  if (a.t != b.t)
    return a.t < b.t;
  if (a.src != b.src)
    return a.src < b.src;
  return a.seq < b.seq;
}

/// Moves x up from index i; returns where it landed.
template <class E, class Place>
size_t sift_up(std::vector<E>& h, size_t i, const E& x, Place place) {
  while (i > 0) {
    const size_t parent = (i - 1) / 4;
    if (!before(x, h[parent]))
      break;
    place(i, h[parent]);
    i = parent;
  }
  place(i, x);
  return i;
}

/// Moves x down from index i.
template <class E, class Place>
void sift_down(std::vector<E>& h, size_t i, const E& x, Place place) {
  const size_t n = h.size();
  for (;;) {
    const size_t first = 4 * i + 1;
    if (first >= n)
      break;
    const size_t last = std::min(first + 4, n);
    size_t m = first;
    for (size_t c = first + 1; c < last; ++c)
      if (before(h[c], h[m]))
        m = c;
    if (!before(h[m], x))
      break;
    place(i, h[m]);
    i = m;
  }
  place(i, x);
}

} // namespace kb::quad_heap
