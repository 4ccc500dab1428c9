#pragma once
// The arithmetic of atomics (docs/adr/0027): the one function both passes
// use, so that the memory's Phase 1 bytes and the Phase 2 replay agree byte
// for byte. Element by element on packed little-endian elements:
//   atomic_add, f32: the f32 sum (one IEEE rounding);
//   atomic_add, i32: the exact sum, wrapping on overflow (two's complement);
//   atomic_max, f32: the larger, NaN propagating (numpy.maximum);
//   atomic_max, i32: the larger, exact.

#include "runtime/data/memory_image.hpp"
#include "runtime/data/op_record.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace kb {

/// dst[i] = f(dst[i], src[i]) for the `type` elements of the packed byte
/// arrays `dst` and `src` (same size). Throws std::logic_error for an `f`
/// that is not an atomic or a `type` other than f32 and i32.
void apply_atomic(math_fn f, dtype type, std::span<uint8_t> dst, std::span<const uint8_t> src);

/// Runs the atomic op record `r` (check() passed) on `m`; `bytes` is scratch.
void run_atomic(const op_record& r, memory_image& m, std::vector<uint8_t>& bytes);

} // namespace kb
