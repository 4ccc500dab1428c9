#pragma once
// Element conversions between f32 and the stored dtypes (seed ADR-0020 D5, D11).
// Phase 2 computes in f32; these turn stored elements into f32 and back.
//
// - f16: IEEE 754 binary16, round to nearest even; overflow goes to inf,
//   subnormals are kept, NaN stays NaN (quiet, the top payload bits kept).
// - bf16: the top half of an f32, round to nearest even; NaN stays NaN.
// - i8 / i32: round to nearest even, saturate at the type's range; NaN -> 0.
//   An i32 beyond 2^24 does not fit an f32 exactly: f32 compute rounds it.
//
// The f64 functions do the same conversions from a double in one rounding
// (exact integers up to 2^53): the verifier rounds its f64 reference to an
// output's dtype with them, and `--input` converts .npy files with them.

#include "kernels/dtype.hpp"

#include <cstdint>
#include <span>

namespace kb {

/// f32 -> binary16 bits, round to nearest even.
uint16_t f32_to_f16(float f);
/// binary16 bits -> f32 (exact).
float f16_to_f32(uint16_t h);
/// f32 -> bfloat16 bits, round to nearest even.
uint16_t f32_to_bf16(float f);
/// bfloat16 bits -> f32 (exact).
float bf16_to_f32(uint16_t b);
/// f32 -> i8, round to nearest even, saturating; NaN -> 0.
int8_t f32_to_i8(float f);
/// f32 -> i32, round to nearest even, saturating; NaN -> 0.
int32_t f32_to_i32(float f);

// round_to(dtype, double): kernels/dtype.hpp (part of the kernel API).

/// Whether decode_f32/encode_f32 convert f16 arrays with the CPU's F16C
/// instructions (same bits as the scalar functions, faster).
bool f16_hardware_conversion();

/// Decodes `out.size()` elements of type `t` (little-endian, packed) from
/// `bytes` (exactly `out.size() * dtype_bytes(t)` long) into f32.
void decode_f32(dtype t, std::span<const uint8_t> bytes, std::span<float> out);
/// Encodes `in` as elements of type `t` into `bytes` (exactly
/// `in.size() * dtype_bytes(t)` long).
void encode_f32(dtype t, std::span<const float> in, std::span<uint8_t> bytes);

/// Decodes elements of type `t` into doubles (exact for every dtype).
void decode_f64(dtype t, std::span<const uint8_t> bytes, std::span<double> out);
/// Encodes `in` as elements of type `t`, each as round_to(t, x) holds it.
void encode_f64(dtype t, std::span<const double> in, std::span<uint8_t> bytes);

} // namespace kb
