#include "actors/detail/pending_writes.hpp"

#include <iterator>

namespace kb::detail {

tensor_view pending_writes::bytes_block(uint64_t address, uint64_t rows, uint64_t row_bytes,
                                        uint64_t stride) {
  return {address, static_cast<uint32_t>(rows), static_cast<uint32_t>(row_bytes),
          rows > 1 ? stride : row_bytes, dtype::i8};
}

template <class F> void pending_writes::for_each_run(const tensor_view& block, F&& f) {
  const uint64_t row = block.row_bytes();
  if (row == 0 || block.rows == 0)
    return;
  if (block.contiguous()) {
    f(block.address, block.address + uint64_t{block.rows} * row);
    return;
  }
  for (uint64_t r = 0; r < block.rows; ++r) {
    const uint64_t first = block.address + r * block.row_stride;
    f(first, first + row);
  }
}

void pending_writes::erase(uint64_t first, uint64_t last) {
  auto it = runs_.lower_bound(first);
  if (it != runs_.begin()) { // a run that starts before `first` and reaches into it
    auto before = std::prev(it);
    if (before->second.last > first) {
      const run tail{before->second.last, before->second.writer};
      before->second.last = first;
      if (tail.last > last) { // it covers [first, last) and more: keep its end
        runs_.emplace(last, tail);
        return;
      }
    }
  }
  while (it != runs_.end() && it->first < last) {
    if (it->second.last > last) { // keep what lies past `last`
      const run tail = it->second;
      runs_.erase(it);
      runs_.emplace(last, tail);
      return;
    }
    it = runs_.erase(it);
  }
}

void pending_writes::add(const tensor_view& block, writer w) {
  if (!writers_.empty() && writers_.back().requester == w.requester &&
      writers_.back().command == w.command && writers_.back().who == w.who) {
    // the same command's next tile: one writer
  } else {
    writers_.push_back(std::move(w));
  }
  const auto index = static_cast<uint32_t>(writers_.size() - 1);
  for_each_run(block, [&](uint64_t first, uint64_t last) {
    erase(first, last);
    runs_.emplace(first, run{last, index});
  });
}

void pending_writes::clear(const tensor_view& block) {
  if (runs_.empty())
    return;
  for_each_run(block, [&](uint64_t first, uint64_t last) { erase(first, last); });
  if (runs_.empty())
    writers_.clear();
}

const pending_writes::writer* pending_writes::find(const tensor_view& block) const {
  if (runs_.empty())
    return nullptr;
  const writer* found = nullptr;
  for_each_run(block, [&](uint64_t first, uint64_t last) {
    if (found)
      return;
    auto it = runs_.upper_bound(first); // the first run starting after `first`
    if (it != runs_.begin() && std::prev(it)->second.last > first)
      found = &writers_[std::prev(it)->second.writer];
    else if (it != runs_.end() && it->first < last)
      found = &writers_[it->second.writer];
  });
  return found;
}

} // namespace kb::detail
