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

namespace {
bool matches(double got, double exp, const tolerance& tol) {
  if (std::isnan(got) || std::isnan(exp))
    return false;
  if (tol.exact || std::isinf(got) || std::isinf(exp))
    return got == exp;
  return std::fabs(got - exp) <= tol.atol + tol.rtol * std::fabs(exp);
}
} // namespace

verify_result compare(std::span<const double> got, std::span<const float> expected, uint32_t rows,
                      uint32_t cols, dtype t, std::string_view name) {
  const uint64_t n = uint64_t{rows} * cols;
  if (got.size() != n || expected.size() != n)
    throw std::invalid_argument(fmt::format("verify {}: {} values and {} expected for {}x{}", name,
                                            got.size(), expected.size(), rows, cols));
  verify_result v;
  v.elements = n;
  v.name = std::string(name);
  v.type = t;
  v.tol = tolerance_for(t);
  for (uint64_t i = 0; i < n; ++i) {
    const double g = got[i], e = expected[i];
    const double diff = std::isinf(g) && g == e ? 0.0 : std::fabs(g - e);
    if (std::isnan(diff) || std::isnan(v.max_abs_error))
      v.max_abs_error = std::numeric_limits<double>::quiet_NaN(); // sticky
    else
      v.max_abs_error = std::max(v.max_abs_error, diff);
    if (matches(g, e, v.tol))
      continue;
    if (v.mismatches++ == 0)
      v.first = {static_cast<uint32_t>(i / cols), static_cast<uint32_t>(i % cols), g, e};
  }
  v.ok = v.mismatches == 0;
  return v;
}

verify_result verify(const memory_image& m, const tensor_view& view,
                     std::span<const float> expected, std::string_view name) {
  const uint64_t n = view.elements();
  std::vector<double> got(n);
  if (view.type == dtype::i32) { // exact beyond 2^24, where f32 would round
    const auto bytes = load_bytes(m, view);
    for (uint64_t i = 0; i < n; ++i) {
      int32_t x;
      std::memcpy(&x, bytes.data() + 4 * i, 4);
      got[i] = x;
    }
  } else {
    const auto f = load_f32(m, view);
    for (uint64_t i = 0; i < n; ++i)
      got[i] = f[i];
  }
  return compare(got, expected, view.rows, view.cols, view.type, name);
}

std::string verify_result::describe() const {
  const std::string_view t = to_string(type);
  if (ok)
    return fmt::format("{}: all {} elements match ({}, max |diff| {:.6g})", name, elements, t,
                       max_abs_error);
  const double diff = std::fabs(first.got - first.expected);
  std::string why;
  if (std::isnan(first.got) || std::isnan(first.expected))
    why = fmt::format("{}: NaN never matches", t);
  else if (tol.exact)
    why = fmt::format("{}: exact", t);
  else if (std::isinf(first.got) || std::isinf(first.expected))
    why = fmt::format("{}: infinities match only themselves", t);
  else
    why = fmt::format("{}: |diff| {:.6g} > {:.6g}", t, diff,
                      tol.atol + tol.rtol * std::fabs(first.expected));
  return fmt::format("{}[{},{}] = {:.9g}, expected {:.9g} ({}); {} of {} elements differ", name,
                     first.row, first.col, first.got, first.expected, why, mismatches, elements);
}

} // namespace kb
