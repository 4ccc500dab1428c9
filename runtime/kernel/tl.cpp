#include "kernels/tl.hpp"

#include "runtime/kernel/tensor_state.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace kb::tl {

namespace {
// One element as a float. (Replaced by runtime/data/tensor's conversions
// when the Phase 2 library lands.)
float element_to_f32(dtype t, std::span<const uint8_t> b) {
  switch (t) {
  case dtype::f32: {
    float f;
    std::memcpy(&f, b.data(), 4);
    return f;
  }
  case dtype::i32: {
    int32_t i;
    std::memcpy(&i, b.data(), 4);
    return static_cast<float>(i);
  }
  case dtype::i8:
    return static_cast<float>(static_cast<int8_t>(b[0]));
  case dtype::bf16: {
    const uint32_t u = uint32_t{b[0]} << 16 | uint32_t{b[1]} << 24;
    return std::bit_cast<float>(u);
  }
  case dtype::f16: {
    const uint16_t h = static_cast<uint16_t>(b[0] | b[1] << 8);
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const float sign = (h & 0x8000) ? -1.0f : 1.0f;
    if (e == 0)
      return sign * std::ldexp(static_cast<float>(m), -24);
    if (e == 31)
      return m ? NAN : sign * INFINITY;
    return sign * std::ldexp(static_cast<float>(m | 0x400), e - 25);
  }
  }
  return 0;
}
} // namespace

const tensor::state& tensor::get() const {
  if (!s_)
    throw kernel_error("a tl::tensor that holds nothing (default-constructed) was used");
  return *s_;
}

uint32_t tensor::rows() const { return get().rows; }
uint32_t tensor::cols() const { return get().cols; }
dtype tensor::type() const { return get().type; }
uint64_t tensor::address() const { return get().address; }
bool tensor::ready() const { return get().ready; }

std::span<const uint8_t> tensor::bytes() const {
  const state& s = get();
  if (!s.ready && !s.pending_from.empty())
    throw kernel_error(fmt::format(
      "{}: the data of a {}x{} {} tensor loaded by command {} was read in Phase 1; the bytes it "
      "loaded hold a compute result ({} wrote them), pending until the Phase 2 replay (only "
      "loads of host data or of stores of loaded data have data in Phase 1)",
      s.owner_text(), s.rows, s.cols, to_string(s.type), s.writer, s.pending_from));
  if (!s.ready)
    throw kernel_error(fmt::format(
      "{}: the data of a {}x{} {} compute result was read in Phase 1; compute results are "
      "pending until the Phase 2 replay (only loaded tensors have data)",
      s.owner_text(), s.rows, s.cols, to_string(s.type)));
  return s.data;
}

float tensor::at(uint32_t r, uint32_t c) const {
  const state& s = get();
  const auto b = bytes();
  if (r >= s.rows || c >= s.cols)
    throw kernel_error(fmt::format("{}: element ({}, {}) of a {}x{} tensor", s.owner_text(), r, c,
                                   s.rows, s.cols));
  const size_t e = dtype_bytes(s.type);
  return element_to_f32(s.type, b.subspan((size_t{r} * s.cols + c) * e, e));
}

tensor future::get() {
  if (!s_)
    throw kernel_error("get() of a tl::future that holds nothing (default-constructed)");
  return s_->ctx->get(*this);
}

handle future::command() const {
  if (!s_)
    throw kernel_error("command() of a tl::future that holds nothing (default-constructed)");
  return {s_->command};
}

} // namespace kb::tl
