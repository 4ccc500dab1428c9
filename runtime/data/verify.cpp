#include "runtime/data/verify.hpp"

#include "runtime/data/dtype_convert.hpp"

#include <fmt/format.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kb {

tolerance tolerance_for(dtype t) {
  switch (t) {
  case dtype::f32:
    return {1e-5, 1e-5, false};
  case dtype::f16:
    return {1e-3, 1e-3, false};
  case dtype::bf16:
    return {1e-2, 1e-2, false};
  case dtype::i8:
  case dtype::i32:
    return {0, 0, true};
  }
  throw std::invalid_argument("tolerance_for: unknown dtype");
}

double tolerance_floor(dtype t) {
  switch (t) {
  case dtype::f32:
  case dtype::bf16:
    return 0x1p-126;
  case dtype::f16:
    return 0x1p-14;
  case dtype::i8:
  case dtype::i32:
    return 0;
  }
  throw std::invalid_argument("tolerance_floor: unknown dtype");
}

double verify_result::allowed(double expected) const {
  return tol.exact ? 0.0 : tol.rtol * std::fabs(expected) + atol;
}

namespace {

bool is_integer(dtype t) { return t == dtype::i8 || t == dtype::i32; }

/// Whether the reference `x` of an i32 output lies outside i32: the
/// hardware's i32 accumulator would wrap there, so the reference is flagged
/// rather than compared. (A narrower integer output, i8, saturates on the
/// store, and round_to saturates the reference the same way.)
bool overflows(dtype t, double x) {
  if (t != dtype::i32 || std::isnan(x))
    return false;
  return x < -2147483648.0 || x > 2147483647.0;
}

bool matches(double got, double exp, const verify_result& v) {
  if (std::isnan(got) || std::isnan(exp))
    return false;
  if (v.tol.exact || std::isinf(got) || std::isinf(exp))
    return got == exp;
  return std::fabs(got - exp) <= v.allowed(exp);
}

} // namespace

verify_result compare(std::span<const double> got, std::span<const double> reference,
                      uint32_t rows, uint32_t cols, dtype t, std::string_view name,
                      std::optional<tolerance> override_tol) {
  const uint64_t n = uint64_t{rows} * cols;
  if (got.size() != n || reference.size() != n)
    throw std::invalid_argument(fmt::format("verify {}: {} values and {} expected for {}x{}", name,
                                            got.size(), reference.size(), rows, cols));
  verify_result v;
  v.elements = n;
  v.name = std::string(name);
  v.type = t;
  v.tol = override_tol.value_or(tolerance_for(t));
  // The reference as the store would leave it in t; its scale.
  std::vector<double> expected(n);
  for (uint64_t i = 0; i < n; ++i) {
    expected[i] = round_to(t, reference[i]);
    if (std::isfinite(expected[i]))
      v.scale = std::max(v.scale, std::fabs(expected[i]));
  }
  v.atol = v.tol.atol_factor * std::max(v.scale, tolerance_floor(t));
  for (uint64_t i = 0; i < n; ++i) {
    const double g = got[i], e = expected[i];
    const double diff = std::isinf(g) && g == e ? 0.0 : std::fabs(g - e);
    if (std::isnan(diff) || std::isnan(v.max_abs_error))
      v.max_abs_error = std::numeric_limits<double>::quiet_NaN(); // sticky
    else
      v.max_abs_error = std::max(v.max_abs_error, diff);
    const bool overflow = overflows(t, reference[i]);
    v.overflows += overflow ? 1 : 0;
    if (!overflow && matches(g, e, v))
      continue;
    if (v.mismatches++ == 0)
      v.first = {static_cast<uint32_t>(i / cols), static_cast<uint32_t>(i % cols), g, e,
                 reference[i], overflow};
  }
  v.ok = v.mismatches == 0;
  return v;
}

verify_result verify(const memory_image& m, const tensor_view& view,
                     std::span<const double> expected, std::string_view name,
                     std::optional<tolerance> override_tol) {
  std::vector<double> got(view.elements());
  decode_f64(view.type, load_bytes(m, view), got); // exact, i32 beyond 2^24 too
  return compare(got, expected, view.rows, view.cols, view.type, name, override_tol);
}

std::string verify_result::describe() const {
  const std::string_view t = to_string(type);
  if (ok)
    return fmt::format("{}: all {} elements match ({}, max |diff| {:.6g})", name, elements, t,
                       max_abs_error);
  const double diff = std::fabs(first.got - first.expected);
  std::string why;
  if (first.overflow)
    why = fmt::format("the reference {:.17g} overflows the output dtype {} at [{},{}]",
                      first.reference, t, first.row, first.col);
  else if (std::isnan(first.got) || std::isnan(first.expected))
    why = fmt::format("{}: NaN never matches", t);
  else if (tol.exact)
    why = fmt::format("{}: exact", t);
  else if (std::isinf(first.got) || std::isinf(first.expected))
    why = fmt::format("{}: infinities match only themselves", t);
  else
    why = fmt::format("{}: |diff| {:.6g} > {:.6g} = {:g} x |expected| + atol {:.6g}", t, diff,
                      allowed(first.expected), tol.rtol, atol);
  std::string rounded;
  if (!first.overflow && first.reference != first.expected &&
      !(std::isnan(first.reference) && std::isnan(first.expected)))
    rounded = fmt::format(" (the reference {:.9g} as {})", first.reference, t);
  std::string over;
  if (overflows > 0)
    over = fmt::format(" ({} reference value{} overflow{} {})", overflows,
                       overflows == 1 ? "" : "s", overflows == 1 ? "s" : "", t);
  // Integers in full (an i32 has 10 digits); floats to 9 digits, enough for an f32.
  const auto value = [this](double x) {
    return is_integer(type) ? fmt::format("{:.17g}", x) : fmt::format("{:.9g}", x);
  };
  return fmt::format("{}[{},{}] = {}, expected {}{} ({}); {} of {} elements differ{}", name,
                     first.row, first.col, value(first.got), value(first.expected), rounded, why,
                     mismatches, elements, over);
}

} // namespace kb
