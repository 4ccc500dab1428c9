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
  for (const auto& [index, page] : other.pages_) {
    auto copy = std::make_unique<uint8_t[]>(page_bytes);
    std::memcpy(copy.get(), page.get(), page_bytes);
    pages_.emplace_hint(pages_.end(), index, std::move(copy));
  }
  return *this;
}

uint8_t* memory_image::page_for_write(uint64_t index) {
  auto it = pages_.find(index);
  if (it == pages_.end())
    it = pages_.emplace(index, std::make_unique<uint8_t[]>(page_bytes)).first; // zeroed
  return it->second.get();
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
      std::memset(out.data() + done, 0, n);
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
  // Equal contents: a page present in one and absent in the other must be zero.
  static const std::vector<uint8_t> zero(memory_image::page_bytes, 0);
  auto page_eq = [](const uint8_t* x, const uint8_t* y) {
    return std::memcmp(x ? x : zero.data(), y ? y : zero.data(), memory_image::page_bytes) == 0;
  };
  for (const auto& [i, p] : a.pages_)
    if (!page_eq(p.get(), b.page_for_read(i)))
      return false;
  for (const auto& [i, p] : b.pages_)
    if (!a.page_for_read(i) && !page_eq(nullptr, p.get()))
      return false;
  return true;
}

} // namespace kb
