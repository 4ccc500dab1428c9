#include "runtime/kernel/tcm_allocator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

tcm_allocator::tcm_allocator(uint64_t size, uint64_t reserved) : size_(size), reserved_(reserved) {
  if (reserved > size)
    throw std::invalid_argument(fmt::format(
      "TCM: {} B reserved for the scheduler exceed the TCM's {} B", reserved, size));
  const uint64_t start = (reserved + alignment - 1) / alignment * alignment;
  if (start < size)
    free_.emplace(start, size - start);
}

std::optional<uint64_t> tcm_allocator::allocate(uint64_t bytes) {
  const uint64_t want = std::max<uint64_t>(alignment, (bytes + alignment - 1) / alignment * alignment);
  if (want < bytes)
    return std::nullopt; // overflowed rounding up
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < want)
      continue;
    const uint64_t at = it->first;
    const uint64_t rest = it->second - want;
    free_.erase(it);
    if (rest > 0)
      free_.emplace(at + want, rest);
    taken_.emplace(at, want);
    used_ += want;
    peak_ = std::max(peak_, used_);
    return at;
  }
  return std::nullopt;
}

void tcm_allocator::free(uint64_t offset) {
  auto t = taken_.find(offset);
  if (t == taken_.end())
    throw std::logic_error(fmt::format("TCM: free of offset {}, which is not allocated", offset));
  uint64_t at = t->first, len = t->second;
  taken_.erase(t);
  used_ -= len;
  auto next = free_.lower_bound(at);
  if (next != free_.end() && at + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == at) {
      prev->second += len;
      return;
    }
  }
  free_.emplace(at, len);
}

uint64_t tcm_allocator::free_bytes() const {
  uint64_t n = 0;
  for (const auto& [at, len] : free_)
    n += len;
  return n;
}

uint64_t tcm_allocator::largest_free() const {
  uint64_t n = 0;
  for (const auto& [at, len] : free_)
    n = std::max(n, len);
  return n;
}

std::string tcm_allocator::describe_free() const {
  return fmt::format("{} B of the {} B AllocatableTCM free (largest block {} B)", free_bytes(),
                     size_ - reserved_, largest_free());
}

} // namespace kb
