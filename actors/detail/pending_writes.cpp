#include "actors/detail/pending_writes.hpp"

#include "runtime/data/tensor.hpp"

#include <algorithm>
#include <vector>

namespace kb::detail {

tensor_view pending_writes::bytes_block(uint64_t address, uint64_t rows, uint64_t row_bytes,
                                        uint64_t stride) {
  return {address, static_cast<uint32_t>(rows), static_cast<uint32_t>(row_bytes),
          rows > 1 ? stride : row_bytes, dtype::i8};
}

void pending_writes::add(const tensor_view& block, writer w) {
  const byte_range r = byte_span(block);
  if (r.empty())
    return;
  widest_ = std::max(widest_, r.last - r.first);
  marked_.emplace(r.first, entry{block, std::move(w)});
}

namespace {

/// Whether every byte of `inner` is a byte of `outer`.
bool covers(const tensor_view& outer, const tensor_view& inner) {
  const byte_range o = byte_span(outer), i = byte_span(inner);
  if (i.first < o.first || i.last > o.last)
    return false;
  if (outer.contiguous())
    return true;
  // Strided: the same stride, and inner's columns inside outer's.
  if (!inner.contiguous() && inner.row_stride != outer.row_stride)
    return false;
  const uint64_t stride = outer.row_stride;
  const uint64_t col = (inner.address - outer.address) % stride;
  return col + (inner.contiguous() ? i.last - i.first : inner.row_bytes()) <= outer.row_bytes();
}

} // namespace

void pending_writes::clear(const tensor_view& block) {
  if (marked_.empty())
    return;
  const byte_range r = byte_span(block);
  std::vector<entry> rest; // what is left of contiguous blocks written in part
  const uint64_t from = r.first > widest_ ? r.first - widest_ : 0;
  auto it = marked_.lower_bound(from);
  while (it != marked_.end() && it->first < r.last) {
    const tensor_view& m = it->second.block;
    if (covers(block, m)) {
      it = marked_.erase(it);
      continue;
    }
    const byte_range mr = byte_span(m);
    if (m.contiguous() && block.contiguous() && mr.first < r.last && r.first < mr.last) {
      // Cut the written bytes out; what stays marked is before and after.
      for (const byte_range left : {byte_range{mr.first, r.first}, byte_range{r.last, mr.last}})
        if (!left.empty())
          rest.push_back({bytes_block(left.first, 1, left.last - left.first, 0), it->second.by});
      it = marked_.erase(it);
      continue;
    }
    ++it; // a strided block written in part stays marked whole (conservative)
  }
  for (entry& e : rest)
    marked_.emplace(e.block.address, std::move(e));
}

const pending_writes::entry* pending_writes::find(const tensor_view& block) const {
  if (marked_.empty())
    return nullptr;
  const byte_range r = byte_span(block);
  if (r.empty())
    return nullptr;
  const uint64_t from = r.first > widest_ ? r.first - widest_ : 0;
  for (auto it = marked_.lower_bound(from); it != marked_.end() && it->first < r.last; ++it)
    if (views_overlap(it->second.block, block, UINT32_MAX)) // exact, never a false error
      return &it->second;
  return nullptr;
}

} // namespace kb::detail
