#include "runtime/data/memory_image.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace kb {

namespace {
void check_end(uint64_t address, uint64_t length) {
  if (length != 0 && address + (length - 1) < address)
    throw std::out_of_range("a memory access wraps past the end of the 64-bit address space");
}
} // namespace

memory_image::memory_image(const memory_image& other) { *this = other; }

memory_image& memory_image::operator=(const memory_image& other) {
  if (this == &other)
    return *this;
  pages_.clear();
  ranges_ = other.ranges_;
  for (const auto& [index, page] : other.pages_) {
    auto copy = std::make_unique<uint8_t[]>(page_bytes);
    std::memcpy(copy.get(), page.get(), page_bytes);
    pages_.emplace_hint(pages_.end(), index, std::move(copy));
  }
  return *this;
}

uint8_t* memory_image::page_for_write(uint64_t index) {
  auto it = pages_.find(index);
  if (it == pages_.end()) {
    it = pages_.emplace(index, std::make_unique<uint8_t[]>(page_bytes)).first; // zeroed
    if (!ranges_.empty())
      fill_unwritten(index * page_bytes, std::span<uint8_t>(it->second.get(), page_bytes));
  }
  return it->second.get();
}

void memory_image::fill_unwritten(uint64_t address, std::span<uint8_t> out) const {
  std::memset(out.data(), 0, out.size());
  if (ranges_.empty() || out.empty())
    return;
  const uint64_t end = address + out.size();
  // The first range that may reach `address`, then every one before `end`.
  auto it = ranges_.upper_bound(address);
  if (it != ranges_.begin())
    --it;
  for (; it != ranges_.end() && it->first < end; ++it) {
    const uint64_t lo = std::max(address, it->first);
    const uint64_t hi = std::min(end, it->first + it->second.length);
    if (lo < hi)
      (*it->second.source)(it->second.first + (lo - it->first),
                           out.subspan(lo - address, hi - lo));
  }
}

void memory_image::generate(uint64_t address, uint64_t length,
                            std::shared_ptr<const byte_source> source, uint64_t source_first) {
  check_end(address, length);
  if (length == 0)
    return;
  if (!source)
    throw std::invalid_argument("memory_image::generate: no source");
  auto next = ranges_.lower_bound(address);
  if ((next != ranges_.end() && next->first < address + length) ||
      (next != ranges_.begin() &&
       std::prev(next)->first + std::prev(next)->second.length > address))
    throw std::invalid_argument("memory_image::generate: the range overlaps another");
  ranges_.emplace_hint(next, address, range{length, source, source_first});
  // Pages already made (other bytes of them were written) get the range's
  // bytes now, as a write would.
  const uint64_t end = address + length;
  for (auto it = pages_.lower_bound(address / page_bytes);
       it != pages_.end() && it->first * page_bytes < end; ++it) {
    const uint64_t lo = std::max(address, it->first * page_bytes);
    const uint64_t hi = std::min(end, (it->first + 1) * page_bytes);
    (*source)(source_first + (lo - address),
              std::span<uint8_t>(it->second.get() + (lo - it->first * page_bytes), hi - lo));
  }
}

void memory_image::materialize() {
  for (const auto& [at, r] : ranges_) {
    const uint64_t last = (at + (r.length - 1)) / page_bytes;
    for (uint64_t i = at / page_bytes; i <= last; ++i)
      page_for_write(i);
  }
}

const uint8_t* memory_image::page_for_read(uint64_t index) const {
  auto it = pages_.find(index);
  return it == pages_.end() ? nullptr : it->second.get();
}

void memory_image::write(uint64_t address, std::span<const uint8_t> bytes) {
  check_end(address, bytes.size());
  uint64_t done = 0;
  while (done < bytes.size()) {
    const uint64_t a = address + done;
    const uint64_t off = a % page_bytes;
    const uint64_t n = std::min<uint64_t>(page_bytes - off, bytes.size() - done);
    std::memcpy(page_for_write(a / page_bytes) + off, bytes.data() + done, n);
    done += n;
  }
}

void memory_image::read(uint64_t address, std::span<uint8_t> out) const {
  check_end(address, out.size());
  uint64_t done = 0;
  while (done < out.size()) {
    const uint64_t a = address + done;
    const uint64_t off = a % page_bytes;
    const uint64_t n = std::min<uint64_t>(page_bytes - off, out.size() - done);
    if (const uint8_t* p = page_for_read(a / page_bytes))
      std::memcpy(out.data() + done, p + off, n);
    else
      fill_unwritten(a, out.subspan(done, n));
    done += n;
  }
}

void memory_image::touch(uint64_t address, uint64_t length) {
  check_end(address, length);
  if (length == 0)
    return;
  const uint64_t last = (address + (length - 1)) / page_bytes;
  for (uint64_t i = address / page_bytes; i <= last; ++i)
    page_for_write(i);
}

void memory_image::keep_generated(uint64_t address, uint64_t length) {
  if (ranges_.empty() || length == 0)
    return;
  check_end(address, length);
  const uint64_t last = (address + (length - 1)) / page_bytes;
  for (uint64_t i = address / page_bytes; i <= last; ++i) {
    if (pages_.count(i) != 0)
      continue;
    const uint64_t from = i * page_bytes, to = from + page_bytes;
    auto it = ranges_.lower_bound(to); // the first range starting at or after the page's end
    if (it == ranges_.begin())
      continue;
    --it; // the last range starting before it
    if (it->first + it->second.length > from)
      page_for_write(i);
  }
}

std::vector<uint8_t> memory_image::read(uint64_t address, uint64_t length) const {
  std::vector<uint8_t> out(length);
  read(address, out);
  return out;
}

void memory_image::write_rows(uint64_t address, uint64_t stride, uint64_t rows,
                              uint64_t row_bytes, std::span<const uint8_t> packed) {
  if (packed.size() != rows * row_bytes)
    throw std::invalid_argument("write_rows: the packed data is not rows * row_bytes long");
  for (uint64_t r = 0; r < rows; ++r)
    write(address + r * stride, packed.subspan(r * row_bytes, row_bytes));
}

void memory_image::read_rows(uint64_t address, uint64_t stride, uint64_t rows,
                             uint64_t row_bytes, std::span<uint8_t> packed) const {
  if (packed.size() != rows * row_bytes)
    throw std::invalid_argument("read_rows: the packed buffer is not rows * row_bytes long");
  for (uint64_t r = 0; r < rows; ++r)
    read(address + r * stride, packed.subspan(r * row_bytes, row_bytes));
}

bool operator==(const memory_image& a, const memory_image& b) {
  // Equal contents: every page either holds (or reads, absent) the same.
  std::vector<uint64_t> pages;
  for (const memory_image* m : {&a, &b}) {
    for (const auto& [i, p] : m->pages_)
      pages.push_back(i);
    for (const auto& [at, r] : m->ranges_)
      for (uint64_t i = at / memory_image::page_bytes;
           i <= (at + (r.length - 1)) / memory_image::page_bytes; ++i)
        pages.push_back(i);
  }
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  std::vector<uint8_t> x(memory_image::page_bytes), y(memory_image::page_bytes);
  for (const uint64_t i : pages) {
    a.read(i * memory_image::page_bytes, x);
    b.read(i * memory_image::page_bytes, y);
    if (x != y)
      return false;
  }
  return true;
}

} // namespace kb
