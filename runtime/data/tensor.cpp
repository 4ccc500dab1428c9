#include "runtime/data/tensor.hpp"

#include "runtime/data/dtype_convert.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

byte_range byte_span(const tensor_view& v) {
  if (v.rows == 0 || v.cols == 0)
    return {v.address, v.address};
  return {v.address, v.address + (uint64_t{v.rows} - 1) * v.row_stride + v.row_bytes()};
}

std::vector<byte_range> row_ranges(const tensor_view& v, uint32_t max_rows) {
  const byte_range span = byte_span(v);
  if (span.empty())
    return {};
  if (v.contiguous() || v.rows > max_rows)
    return {span};
  std::vector<byte_range> rows(v.rows);
  for (uint32_t r = 0; r < v.rows; ++r) {
    const uint64_t a = v.address + uint64_t{r} * v.row_stride;
    rows[r] = {a, a + v.row_bytes()};
  }
  return rows;
}

namespace {

/// A view as rows of bytes: `rows` rows of `bytes`, `stride` apart (a
/// contiguous view is one row).
struct rows_of {
  uint64_t address, rows, bytes, stride;
  explicit rows_of(const tensor_view& v)
    : address(v.address), rows(v.rows), bytes(v.row_bytes()), stride(v.row_stride) {
    if (v.contiguous()) {
      bytes *= rows;
      rows = 1;
      stride = bytes;
    }
  }
};

/// Whether [first, last) meets a row of `p`.
bool range_meets(uint64_t first, uint64_t last, const rows_of& p) {
  if (last <= p.address)
    return false;
  // The last row starting before `last` is the one that may reach past `first`.
  const uint64_t r = std::min<uint64_t>((last - 1 - p.address) / p.stride, p.rows - 1);
  return p.address + r * p.stride + p.bytes > first;
}

/// Same stride, p.address <= q.address: row r of p meets row r' of q only
/// for k = r - r' in {d / S, d / S + 1} (rows are at most S bytes).
bool same_stride_meet(const rows_of& p, const rows_of& q) {
  const uint64_t s = p.stride, d = q.address - p.address;
  const uint64_t k0 = d / s, rem = d % s;
  // Rows r of p (0 <= r < p.rows) with r - k a row of q: need k < p.rows.
  if (rem < p.bytes && k0 < p.rows)
    return true;
  return s - rem < q.bytes && k0 + 1 < p.rows;
}

} // namespace

bool views_overlap(const tensor_view& a, const tensor_view& b, uint32_t max_row_checks) {
  const byte_range sa = byte_span(a), sb = byte_span(b);
  if (sa.empty() || sb.empty() || sa.last <= sb.first || sb.last <= sa.first)
    return false;
  rows_of p(a), q(b);
  if (p.rows == 1)
    return range_meets(p.address, p.address + p.bytes, q);
  if (q.rows == 1)
    return range_meets(q.address, q.address + q.bytes, p);
  if (p.stride == q.stride)
    return p.address <= q.address ? same_stride_meet(p, q) : same_stride_meet(q, p);
  if (q.rows < p.rows)
    std::swap(p, q);
  if (p.rows > max_row_checks)
    return true; // the spans overlap: conservative
  for (uint64_t r = 0; r < p.rows; ++r) {
    const uint64_t at = p.address + r * p.stride;
    if (range_meets(at, at + p.bytes, q))
      return true;
  }
  return false;
}

bool view_meets(const tensor_view& v, byte_range r) {
  const byte_range sv = byte_span(v);
  if (sv.empty() || r.empty() || sv.last <= r.first || r.last <= sv.first)
    return false;
  return range_meets(r.first, r.last, rows_of(v));
}

std::string check_view(const tensor_view& v) {
  if (dtype_bytes(v.type) == 0)
    return fmt::format("view at {:#x} has an unknown dtype", v.address);
  if (v.rows == 0 || v.cols == 0)
    return {};
  if (v.rows > 1 && v.row_stride < v.row_bytes())
    return fmt::format("view {}: the row stride {} is below the row size {} bytes", to_string(v),
                       v.row_stride, v.row_bytes());
  // The last byte, address + (rows - 1) * stride + row_bytes - 1, must not wrap.
  constexpr uint64_t max = ~uint64_t{0};
  const uint64_t steps = uint64_t{v.rows} - 1;
  const bool wraps = (steps != 0 && v.row_stride > (max - v.row_bytes()) / steps) ||
                     steps * v.row_stride + v.row_bytes() - 1 > max - v.address;
  if (wraps)
    return fmt::format("view {} runs past the end of the 64-bit address space", to_string(v));
  return {};
}

std::string to_string(const tensor_view& v) {
  return fmt::format("{:#x} {}x{} {} stride {}", v.address, v.rows, v.cols, kb::to_string(v.type),
                     v.row_stride);
}

namespace {
void read_packed(const memory_image& m, const tensor_view& v, std::span<uint8_t> packed) {
  if (v.contiguous())
    m.read(v.address, packed);
  else
    m.read_rows(v.address, v.row_stride, v.rows, v.row_bytes(), packed);
}
} // namespace

std::vector<uint8_t> load_bytes(const memory_image& m, const tensor_view& v) {
  std::vector<uint8_t> out(v.elements() * dtype_bytes(v.type));
  read_packed(m, v, out);
  return out;
}

void store_bytes(memory_image& m, const tensor_view& v, std::span<const uint8_t> packed) {
  if (packed.size() != v.elements() * dtype_bytes(v.type))
    throw std::invalid_argument(
      fmt::format("store_bytes: {} bytes for view {}", packed.size(), to_string(v)));
  if (v.contiguous())
    m.write(v.address, packed);
  else
    m.write_rows(v.address, v.row_stride, v.rows, v.row_bytes(), packed);
}

void load_f32(const memory_image& m, const tensor_view& v, std::span<float> out,
              std::vector<uint8_t>& bytes) {
  if (out.size() != v.elements())
    throw std::invalid_argument(
      fmt::format("load_f32: {} floats for view {}", out.size(), to_string(v)));
  if (v.type == dtype::f32) { // straight into the floats (little-endian host)
    read_packed(m, v, std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), out.size() * 4));
    return;
  }
  bytes.resize(v.elements() * dtype_bytes(v.type));
  read_packed(m, v, bytes);
  decode_f32(v.type, bytes, out);
}

std::vector<float> load_f32(const memory_image& m, const tensor_view& v) {
  std::vector<float> out(v.elements());
  std::vector<uint8_t> bytes;
  load_f32(m, v, out, bytes);
  return out;
}

void store_f32(memory_image& m, const tensor_view& v, std::span<const float> values,
               std::vector<uint8_t>& bytes) {
  if (values.size() != v.elements())
    throw std::invalid_argument(
      fmt::format("store_f32: {} floats for view {}", values.size(), to_string(v)));
  if (v.type == dtype::f32) {
    store_bytes(m, v,
                std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()),
                                         values.size() * 4));
    return;
  }
  bytes.resize(v.elements() * dtype_bytes(v.type));
  encode_f32(v.type, values, bytes);
  store_bytes(m, v, bytes);
}

void store_f32(memory_image& m, const tensor_view& v, std::span<const float> values) {
  std::vector<uint8_t> bytes;
  store_f32(m, v, values, bytes);
}

} // namespace kb
