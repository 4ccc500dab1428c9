#pragma once
// A loop over indices on several threads that fails as the plain loop would.
//
// for_each_index(n, threads, fn) calls fn(i) for every i in [0, n), split
// into one contiguous block per thread (the caller's thread takes the
// first). A block stops at its first exception; once every thread has
// joined, the exception of the lowest failing index is rethrown: what the
// sequential loop would have thrown, whatever the threads, so bad input is
// reported the same way on 1 or 16 threads. fn must be safe to call at once
// for different indices.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

namespace kb {

/// Blocks smaller than this are not worth a thread.
inline constexpr size_t min_parallel_block = 256;

/// (`min_block`: the fewest indices worth a thread; 1 for a few big tasks.)
template <class Fn>
void for_each_index(size_t n, size_t threads, Fn&& fn, size_t min_block = min_parallel_block) {
  const size_t t =
    std::clamp<size_t>(threads, 1, std::max<size_t>(1, n / std::max<size_t>(1, min_block)));
  if (t == 1) {
    for (size_t i = 0; i < n; ++i)
      fn(i);
    return;
  }
  std::vector<std::exception_ptr> failed(t);
  auto block = [&](size_t k) {
    for (size_t i = n * k / t, end = n * (k + 1) / t; i < end; ++i)
      try {
        fn(i);
      } catch (...) {
        failed[k] = std::current_exception();
        return;
      }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(t - 1);
  try {
    for (size_t k = 1; k < t; ++k)
      helpers.emplace_back(block, k);
  } catch (...) { // no thread to be had: the rest runs here
    for (size_t k = helpers.size() + 1; k < t; ++k)
      block(k);
  }
  block(0);
  for (auto& h : helpers)
    h.join();
  // Blocks are in index order: the first that failed holds the lowest index.
  for (auto& e : failed)
    if (e)
      std::rethrow_exception(e);
}

} // namespace kb
