#include "runtime/config/detail/scalar_parse.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace kb::detail {

namespace {

bool all_digits(std::string_view s, bool hex) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [hex](char c) {
    return (c >= '0' && c <= '9') ||
           (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
  });
}

scalar_result<uint64_t> digits_to_u64(std::string_view s, int base) {
  if (!all_digits(s, base == 16))
    return {scalar_status::syntax};
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec == std::errc::result_out_of_range)
    return {scalar_status::range};
  if (ec != std::errc{} || ptr != s.data() + s.size())
    return {scalar_status::syntax};
  return {scalar_status::ok, v};
}

bool mul_add(uint64_t& acc, uint64_t mul, uint64_t add) {
  if (acc > (std::numeric_limits<uint64_t>::max() - add) / mul)
    return false;
  acc = acc * mul + add;
  return true;
}

} // namespace

scalar_result<uint64_t> parse_uint(std::string_view text) {
  if (text.starts_with('+'))
    text.remove_prefix(1);
  if (text.starts_with("0x") || text.starts_with("0X"))
    return digits_to_u64(text.substr(2), 16);
  return digits_to_u64(text, 10);
}

scalar_result<int64_t> parse_int(std::string_view text) {
  bool negative = text.starts_with('-');
  if (negative || text.starts_with('+'))
    text.remove_prefix(1);
  auto mag = digits_to_u64(text, 10);
  if (mag.status != scalar_status::ok)
    return {mag.status};
  constexpr uint64_t max = std::numeric_limits<int64_t>::max();
  if (mag.value > max + (negative ? 1 : 0))
    return {scalar_status::range};
  int64_t v = negative ? static_cast<int64_t>(0 - mag.value)
                       : static_cast<int64_t>(mag.value);
  return {scalar_status::ok, v};
}

scalar_result<double> parse_double(std::string_view text) {
  if (text.starts_with('+'))
    text.remove_prefix(1);
  if (text.empty())
    return {scalar_status::syntax};
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v,
                                   std::chars_format::general);
  if (ec == std::errc::result_out_of_range)
    return {scalar_status::range};
  if (ec != std::errc{} || ptr != text.data() + text.size())
    return {scalar_status::syntax};
  if (!std::isfinite(v))
    return {scalar_status::syntax};
  return {scalar_status::ok, v};
}

std::optional<bool> parse_bool(std::string_view text) {
  std::string lower(text);
  std::transform(
      lower.begin(), lower.end(), lower.begin(),
      [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "yes" || lower == "on")
    return true;
  if (lower == "false" || lower == "no" || lower == "off")
    return false;
  return std::nullopt;
}

scalar_result<fixed_value> parse_fixed(std::string_view text,
                                       unsigned decimals) {
  fixed_value out;
  out.negative = text.starts_with('-');
  if (out.negative || text.starts_with('+'))
    text.remove_prefix(1);
  const auto dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view frac =
      dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
  if (!all_digits(whole, false) ||
      (dot != std::string_view::npos && !all_digits(frac, false)))
    return {scalar_status::syntax, out};
  bool fits = true;
  for (char c : whole)
    fits = fits && mul_add(out.magnitude, 10, static_cast<uint64_t>(c - '0'));
  for (unsigned i = 0; i < decimals; ++i) {
    const uint64_t d =
        i < frac.size() ? static_cast<uint64_t>(frac[i] - '0') : 0;
    fits = fits && mul_add(out.magnitude, 10, d);
  }
  if (!fits)
    return {scalar_status::range, out};
  for (std::size_t i = decimals; i < frac.size(); ++i)
    if (frac[i] != '0')
      return {scalar_status::inexact, out};
  return {scalar_status::ok, out};
}

} // namespace kb::detail
