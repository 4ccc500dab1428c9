#pragma once
// Compute rate by dtype (ADR-0032): the rate at which PE_GEMM and PE_MATH
// work on an element type, as an exact fraction of their f16 rate. A rate
// num/den turns W units of f16 work into ceil(W * den / num) cycles: integers
// only, so a cycle count never depends on floating-point rounding.

#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "kernels/dtype.hpp"
#include "runtime/sim_time.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// Work per cycle relative to f16, num/den in lowest terms (both >= 1).
struct compute_rate {
  uint32_t num = 1;
  uint32_t den = 1;
  friend bool operator==(const compute_rate&, const compute_rate&) = default;
};

/// Every dtype's rate, indexed by the dtype's value; all 1 by default.
struct dtype_rates {
  static constexpr size_t count = static_cast<size_t>(dtype::i32) + 1;
  std::array<compute_rate, count> by_type{};

  const compute_rate& of(dtype t) const { return by_type.at(static_cast<size_t>(t)); }
  compute_rate& of(dtype t) { return by_type.at(static_cast<size_t>(t)); }
  /// The slower of the rates of `a` and `b`.
  compute_rate slower(dtype a, dtype b) const {
    const compute_rate& x = of(a);
    const compute_rate& y = of(b);
    return uint64_t{x.num} * y.den <= uint64_t{y.num} * x.den ? x : y;
  }
};

/// ceil(work * r.den / r.num); nullopt when work * r.den exceeds 64 bits
/// (the units then saturate, as their other cycle counts do).
constexpr std::optional<uint64_t> scaled_ceil(uint64_t work, compute_rate r) {
  const auto n = checked_mul(work, r.den);
  if (!n)
    return std::nullopt;
  return *n / r.num + (*n % r.num != 0 ? 1 : 0);
}

/// Parses a rate: a positive integer ("2"), a fraction ("1/4") or a
/// decimal ("0.25", up to 9 decimals), each read exactly. Zero, negative
/// and anything else is nullopt, as is a rate whose numerator or
/// denominator in lowest terms exceeds 2^32 - 1.
inline std::optional<compute_rate> parse_compute_rate(std::string_view text) {
  auto digits = [](std::string_view s) -> std::optional<uint64_t> {
    uint64_t v = 0;
    if (s.empty() || s.size() > 18)
      return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size())
      return std::nullopt;
    return v;
  };
  uint64_t num = 0, den = 1;
  if (const auto slash = text.find('/'); slash != std::string_view::npos) {
    const auto n = digits(text.substr(0, slash)), d = digits(text.substr(slash + 1));
    if (!n || !d)
      return std::nullopt;
    num = *n;
    den = *d;
  } else if (const auto dot = text.find('.'); dot != std::string_view::npos) {
    const std::string_view whole = text.substr(0, dot), frac = text.substr(dot + 1);
    if (frac.empty() || frac.size() > 9)
      return std::nullopt;
    const auto w = whole.empty() ? std::optional<uint64_t>{0} : digits(whole);
    const auto f = digits(frac);
    if (!w || !f || *w > UINT32_MAX)
      return std::nullopt;
    for (size_t i = 0; i < frac.size(); ++i)
      den *= 10;
    num = *w * den + *f;
  } else {
    const auto n = digits(text);
    if (!n)
      return std::nullopt;
    num = *n;
  }
  if (num == 0 || den == 0)
    return std::nullopt;
  const uint64_t g = std::gcd(num, den);
  num /= g;
  den /= g;
  if (num > UINT32_MAX || den > UINT32_MAX)
    return std::nullopt;
  return compute_rate{static_cast<uint32_t>(num), static_cast<uint32_t>(den)};
}

/// The key of `t`'s rate: "rate_f32", "rate_i8", ...
inline std::string rate_key(dtype t) { return fmt::format("rate_{}", to_string(t)); }

/// The declared rate keys of an implementation (runtime/config/param_decl),
/// one per dtype, each defaulting to 1, read into `member`. `work` says what
/// the rate multiplies ("MACs", "elements"). A value that is not a positive
/// rate is a config_error naming file:line and key.
template <class C>
std::vector<param_entry<C>> rate_params(dtype_rates C::*member, std::string_view work) {
  std::vector<param_entry<C>> out;
  for (size_t i = 0; i < dtype_rates::count; ++i) {
    const auto t = static_cast<dtype>(i);
    param_doc d{rate_key(t), "string", "1",
                fmt::format("{} per cycle on {} relative to f16: n, 1/n or n/d (exact)", work,
                            to_string(t))};
    out.push_back({std::move(d), [member, t](C& c, const param_reader& p) {
                     const std::string key = rate_key(t);
                     const std::string text = p.get_or<std::string>(key, "1");
                     const auto rate = parse_compute_rate(text);
                     if (!rate)
                       throw p.error(key, fmt::format("'{}' is not a rate: expected a positive "
                                                      "integer n, a fraction n/d or a decimal "
                                                      "such as 0.25 (work per cycle relative "
                                                      "to f16)",
                                                      text));
                     (c.*member).of(t) = *rate;
                   }});
  }
  return out;
}

} // namespace kb
