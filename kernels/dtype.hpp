#pragma once
// Element data types of tensors moved and computed by the PE pipeline. Part
// of the kernel API (kernels/tl.hpp), used by the runtime as it is; the
// functions are defined in runtime/plan/dtype.cpp, round_to in
// runtime/data/dtype_convert.cpp.

#include <cstdint>
#include <optional>
#include <string_view>

namespace kb {

/// Element type of a tensor in memory (DESIGN §4: f32 4 B, f16 2 B, bf16 2 B,
/// i8 1 B, i32 4 B). GEMM accumulates in f32 inside the engine regardless.
enum class dtype : uint8_t { f32, f16, bf16, i8, i32 };

/// Size of one element of `t` in bytes.
constexpr uint32_t dtype_bytes(dtype t) {
  switch (t) {
  case dtype::f32:
  case dtype::i32:
    return 4;
  case dtype::f16:
  case dtype::bf16:
    return 2;
  case dtype::i8:
    return 1;
  }
  return 0; // unreachable for valid enumerators
}

/// Lower-case name of `t` ("f32", "bf16", ...).
std::string_view to_string(dtype t);

/// Parses a lower-case dtype name; `std::nullopt` if unknown.
std::optional<dtype> parse_dtype(std::string_view name);

/// `x` as a store of it to `t` leaves it, as a double: f32/f16/bf16 round to
/// nearest even (overflow to inf, NaN stays NaN), i8/i32 round to nearest
/// even and saturate (NaN -> 0). One rounding, straight from the double.
double round_to(dtype t, double x);

} // namespace kb
