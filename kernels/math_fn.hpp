#pragma once
// The functions of the compute ops on TCM tensors (tl.unary, tl.binary,
// atomics, ...) and of the op records that log them. Part of the kernel API
// (kernels/tl.hpp); their semantics are in runtime/data/op_record.hpp, the
// functions are defined in runtime/data/op_record.cpp.

#include <cstdint>
#include <optional>
#include <string_view>

namespace kb {

/// The function of a math op.
enum class math_fn : uint8_t {
  exp, log, relu, rsqrt, sqrt, neg, abs, recip, tanh,
  add, sub, mul, div, max, min,
  where,
  scale, add_scalar,
  sum, row_max, row_min,
  cast,
  // index and mask tensors, scans (docs/adr/0026)
  arange, full,
  lt, le, gt, ge, eq, ne,
  logical_and, logical_or, logical_not,
  argmax, argmin, cumsum,
  // atomics on global memory (docs/adr/0027)
  atomic_add, atomic_max,
};

/// The number of math_fn enumerators (atomic_max is the last).
inline constexpr unsigned math_fn_count = static_cast<unsigned>(math_fn::atomic_max) + 1;

std::string_view to_string(math_fn f);
std::optional<math_fn> parse_math_fn(std::string_view name);

} // namespace kb
