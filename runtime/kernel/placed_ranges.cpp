#include "runtime/kernel/placed_ranges.hpp"

#include "runtime/address.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

void placed_ranges::add(range r) {
  if (r.end <= r.begin)
    throw std::logic_error(fmt::format("placed_ranges: {} is empty", r.what));
  auto at = std::upper_bound(ranges_.begin(), ranges_.end(), r.begin,
                             [](uint64_t a, const range& x) { return a < x.begin; });
  if ((at != ranges_.end() && at->begin < r.end) ||
      (at != ranges_.begin() && std::prev(at)->end > r.begin))
    throw std::logic_error(fmt::format("placed_ranges: {} overlaps another range", r.what));
  ranges_.insert(at, std::move(r));
}

std::string placed_ranges::check(uint64_t address, uint64_t span, bool write) const {
  if (ranges_.empty() || span == 0)
    return {};
  const uint64_t last = address + (span - 1);
  // The range holding `address`, if any, and the first one after it.
  auto after = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                                [](uint64_t a, const range& x) { return a < x.begin; });
  if (after != ranges_.begin() && std::prev(after)->end > address) {
    const range& in = *std::prev(after);
    if (last >= in.end || last < address)
      return fmt::format("[{}, +{} B) runs past the end of {} (a spread tensor's access stays "
                         "inside one block; its blocks lie in different memories)",
                         describe_address(address), span, in.what);
    if (write && in.read_only)
      return fmt::format("[{}, +{} B) writes {}: a replicated tensor is read-only (each cube "
                         "holds a copy, and a write would change one)",
                         describe_address(address), span, in.what);
    return {};
  }
  if (after != ranges_.end() && after->begin <= last && last >= address)
    return fmt::format("[{}, +{} B) runs into {} from outside it",
                       describe_address(address), span, after->what);
  return {};
}

} // namespace kb
