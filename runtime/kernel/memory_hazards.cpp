#include "runtime/kernel/memory_hazards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace kb {

namespace {

bool overlap(const tensor_view& a, const tensor_view& b) {
  return views_overlap(a, b, exact_overlap);
}

} // namespace

memory_hazards::memory_hazards(std::function<bool(uint64_t)> done) : done_(std::move(done)) {}

tensor_view memory_hazards::bytes(uint64_t address, uint64_t stride, uint64_t rows,
                                  uint64_t row_bytes) {
  constexpr uint64_t most = std::numeric_limits<uint32_t>::max();
  if (rows > most || row_bytes > most) // larger than any memory of the machine
    throw std::invalid_argument(
      fmt::format("a range of {} rows of {} B at {:#x}: too large to track", rows, row_bytes,
                  address));
  return {address, static_cast<uint32_t>(rows), static_cast<uint32_t>(row_bytes), stride,
          dtype::i8};
}

void memory_hazards::drop_finished_stores() {
  std::erase_if(in_flight_, [this](const write& w) { return done_(w.command); });
}

std::vector<uint64_t> memory_hazards::stores_into(const tensor_view& range) {
  drop_finished_stores();
  std::vector<uint64_t> out;
  for (const write& w : in_flight_)
    if (overlap(range, w.range))
      out.push_back(w.command);
  return out;
}

void memory_hazards::loading(uint64_t id, std::string what, tensor_view range) {
  loads_[id] = {std::move(what), range, in_flight_};
}

const memory_hazards::load* memory_hazards::load_of(uint64_t id) const {
  const auto it = loads_.find(id);
  return it == loads_.end() ? nullptr : &it->second;
}

void memory_hazards::forward(const tensor_view& range, const std::vector<write>& stores,
                             std::vector<uint8_t>& data) {
  size_t first = 0;
  // The memory's bytes are what the load waited for after an atomic or a
  // compute result's write (no data here to lay over them).
  for (size_t i = 0; i < stores.size(); ++i)
    if ((stores[i].atomic || stores[i].data.empty()) && overlap(range, stores[i].range))
      first = i + 1;
  const uint64_t stride = range.row_stride, row_bytes = range.row_bytes();
  for (size_t i = first; i < stores.size(); ++i) {
    const write& w = stores[i];
    if (w.atomic || w.data.empty() || !overlap(range, w.range))
      continue;
    // Copy every byte both cover, row by row of the store.
    const uint64_t w_bytes = w.range.row_bytes();
    for (uint64_t r = 0; r < w.range.rows; ++r) {
      const uint64_t src = w.range.address + r * w.range.row_stride;
      for (uint64_t lr = 0; lr < range.rows; ++lr) {
        const uint64_t dst = range.address + lr * stride;
        const uint64_t lo = std::max(src, dst), hi = std::min(src + w_bytes, dst + row_bytes);
        if (lo < hi)
          std::copy_n(w.data.begin() + static_cast<ptrdiff_t>(r * w_bytes + (lo - src)), hi - lo,
                      data.begin() + static_cast<ptrdiff_t>(lr * row_bytes + (lo - dst)));
      }
    }
  }
}

std::vector<uint64_t> memory_hazards::write_hazards(const tensor_view& range) const {
  std::vector<uint64_t> out;
  auto add = [&](uint64_t id) {
    if (!done_(id) && std::find(out.begin(), out.end(), id) == out.end())
      out.push_back(id);
  };
  for (const auto& [id, l] : loads_)
    if (overlap(range, l.range))
      add(id);
  for (const write& w : in_flight_) // stores with data
    if (!w.data.empty() && overlap(range, w.range))
      add(w.command);
  for (const composite_reads& c : composites_)
    for (const byte_range& r : c.reads)
      if (view_meets(range, r))
        add(c.command);
  for (const write& w : in_flight_) // compute results still being written
    if (w.data.empty() && overlap(range, w.range))
      add(w.command);
  return out;
}

void memory_hazards::wrote(write w) {
  drop_finished_stores();
  in_flight_.push_back(std::move(w));
}

std::vector<uint64_t> memory_hazards::stores_in_flight() const {
  std::vector<uint64_t> out;
  for (const write& w : in_flight_)
    if (!w.data.empty() && !done_(w.command))
      out.push_back(w.command);
  return out;
}

std::vector<uint64_t> memory_hazards::loads_reading(const tensor_view& range) const {
  std::vector<uint64_t> out;
  for (const auto& [id, l] : loads_)
    if (!done_(id) && overlap(range, l.range))
      out.push_back(id);
  return out;
}

void memory_hazards::composite(uint64_t id, std::vector<byte_range> reads) {
  std::erase_if(composites_, [this](const composite_reads& r) { return done_(r.command); });
  composites_.push_back({id, std::move(reads)});
}

} // namespace kb
