#include "runtime/data/tensor.hpp"

#include "runtime/data/dtype_convert.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

tensor_view packed_view(uint64_t address, uint32_t rows, uint32_t cols, dtype type) {
  return {address, rows, cols, uint64_t{cols} * dtype_bytes(type), type};
}

byte_range byte_span(const tensor_view& v) {
  if (v.rows == 0 || v.cols == 0)
    return {v.address, v.address};
  return {v.address, v.address + (uint64_t{v.rows} - 1) * v.row_stride + v.row_bytes()};
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
