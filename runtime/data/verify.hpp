#pragma once
// Phase 2 verification (seed ADR-0020 D11): a tensor of the final image
// against an f64 reference, numpy.allclose style, with the absolute part
// scaled to the tensor (docs/kernels.md, "How results are checked"):
//
//   |got - expected| <= rtol * |expected| + atol,
//   atol = atol_factor * max(scale, floor)
//
// where `expected` is the reference rounded (and, for integers, saturated)
// to the output's dtype as a store does (dtype_convert's round_to), `scale`
// is the largest finite |expected| of the tensor and `floor` the dtype's
// smallest normal number. rtol and atol_factor per dtype: f32 1e-5, f16
// 1e-3, bf16 1e-2; integers exact. A reference value outside an i32
// output's range is a mismatch of its own (the i32 accumulator would wrap:
// the reference overflows the dtype); an i8 output saturates like its
// store. NaN never matches (not even NaN); infinities match only the same
// infinity.

#include "runtime/data/memory_image.hpp"
#include "runtime/data/tensor.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kb {

struct tolerance {
  double rtol = 0;
  double atol_factor = 0; ///< atol = atol_factor * max(scale, floor)
  bool exact = false;     ///< integer types: equal or not
};

/// The D11 tolerance of `t`.
tolerance tolerance_for(dtype t);
/// The floor of the absolute tolerance's scale: `t`'s smallest normal
/// number (f32 and bf16 2^-126, f16 2^-14); 0 for integers.
double tolerance_floor(dtype t);

struct verify_result {
  bool ok = true;
  uint64_t elements = 0;
  uint64_t mismatches = 0;
  uint64_t overflows = 0;   ///< reference values outside an integer output's range
  double max_abs_error = 0; ///< over all elements; NaN if any element is NaN
  struct mismatch {
    uint32_t row = 0, col = 0;
    double got = 0;
    double expected = 0;    ///< the reference rounded to the dtype (as compared)
    double reference = 0;   ///< the reference as the kernel gave it
    bool overflow = false;  ///< the reference is outside the integer dtype's range
  };
  mismatch first;           ///< the first mismatch in row-major order (if !ok)
  std::string name;         ///< the tensor's name in messages
  dtype type = dtype::f32;
  tolerance tol;
  double scale = 0;         ///< the largest finite |expected|
  double atol = 0;          ///< tol.atol_factor * max(scale, floor)

  /// The tolerance of an element whose expected value is `expected`.
  double allowed(double expected) const;

  /// One line naming the first mismatching element and the tolerance it
  /// failed, e.g. "c[3,17] = 1.25, expected 1.5 (f16: |diff| 0.25 >
  /// 0.0025 = 0.001 x |expected| + atol 0.001); 12 of 4096 elements
  /// differ", or "c: all 4096 elements match (f16, max |diff| 0.0001)".
  std::string describe() const;
};

/// Compares `got` (row-major rows x cols, as stored) with the reference
/// `expected` under the tolerance of `t` (or `override_tol`).
verify_result compare(std::span<const double> got, std::span<const double> expected, uint32_t rows,
                      uint32_t cols, dtype t, std::string_view name = "out",
                      std::optional<tolerance> override_tol = std::nullopt);

/// Compares the tensor `v` of `m` with `expected` (v.rows * v.cols values,
/// row-major). Integer elements are compared exactly, i32 beyond 2^24 too.
verify_result verify(const memory_image& m, const tensor_view& v, std::span<const double> expected,
                     std::string_view name = "out",
                     std::optional<tolerance> override_tol = std::nullopt);

} // namespace kb
