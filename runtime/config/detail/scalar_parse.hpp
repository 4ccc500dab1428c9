#pragma once
// Strict parsing of YAML scalar text into numbers and booleans. Internal to
// the config module; param_reader turns failures into config errors.

#include <cstdint>
#include <optional>
#include <string_view>

namespace kb::detail {

enum class scalar_status {
  ok,
  syntax,  // not a number of the requested form
  range,   // a number, but it does not fit
  inexact, // a decimal with more fractional digits than the scale allows
};

template <class T> struct scalar_result {
  scalar_status status = scalar_status::syntax;
  T value{};
};

/// Decimal digits (optional leading '+') or 0x-prefixed hex.
scalar_result<uint64_t> parse_uint(std::string_view text);

/// Decimal digits with optional sign.
scalar_result<int64_t> parse_int(std::string_view text);

/// A finite decimal floating-point number.
scalar_result<double> parse_double(std::string_view text);

/// true/false, yes/no, on/off in any case.
std::optional<bool> parse_bool(std::string_view text);

/// A signed decimal `[+-]digits[.digits]` multiplied by 10^`decimals`, which
/// must give a whole number (trailing zeros past the scale are fine).
struct fixed_value {
  bool negative = false;
  uint64_t magnitude = 0;
};
scalar_result<fixed_value> parse_fixed(std::string_view text,
                                       unsigned decimals);

} // namespace kb::detail
