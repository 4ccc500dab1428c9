#pragma once
// Phase 2 verification (ADR-0020 D11): a tensor of the final image against a
// reference, numpy.allclose style: |got - expected| <= atol + rtol * |expected|,
// with per-dtype tolerances (f32 1e-5, f16 1e-3, bf16 1e-2; ints exact).
// NaN never matches (not even NaN); infinities match only the same infinity.

#include "runtime/data/memory_image.hpp"
#include "runtime/data/tensor.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kb {

struct tolerance {
  double rtol = 0;
  double atol = 0;
  bool exact = false; ///< integer types: equal or not
};

/// The D11 tolerance of `t`.
tolerance tolerance_for(dtype t);

struct verify_result {
  bool ok = true;
  uint64_t elements = 0;
  uint64_t mismatches = 0;
  double max_abs_error = 0; ///< over all elements; NaN if any element is NaN
  struct mismatch {
    uint32_t row = 0, col = 0;
    double got = 0, expected = 0;
  };
  mismatch first;           ///< the first mismatch in row-major order (if !ok)
  std::string name;         ///< the tensor's name in messages
  dtype type = dtype::f32;
  tolerance tol;

  /// One line, e.g. "c[3,17] = 1.25, expected 1.5 (f16: |diff| 0.25 > 0.0025);
  /// 12 of 4096 elements differ", or "c: all 4096 elements match (f16, max
  /// |diff| 0.0001)".
  std::string describe() const;
};

/// Compares `got` (row-major rows x cols, already f32) with `expected` under
/// the tolerance of `t`.
verify_result compare(std::span<const double> got, std::span<const float> expected, uint32_t rows,
                      uint32_t cols, dtype t, std::string_view name = "out");

/// Compares the tensor `v` of `m` with `expected` (v.rows * v.cols values,
/// row-major). Integer elements are compared exactly, i32 beyond 2^24 too.
verify_result verify(const memory_image& m, const tensor_view& v, std::span<const float> expected,
                     std::string_view name = "out");

} // namespace kb
