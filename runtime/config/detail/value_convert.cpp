#include "runtime/config/detail/value_convert.hpp"

#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/config/detail/scalar_parse.hpp"

namespace kb::detail {

namespace {

constexpr std::string_view k_uint = "a non-negative integer";
constexpr std::string_view k_ps = "a non-negative integer (picoseconds)";
constexpr std::string_view k_ns =
    "a non-negative number of nanoseconds (at most 3 decimals)";
constexpr std::string_view k_gbps = "a bandwidth in GB/s (a number)";

/// The text of a plain (unquoted) scalar; quoted strings are not numbers.
std::optional<std::string> plain_scalar(const YAML::Node& v) {
  if (!v.IsScalar() || v.Tag() == "!")
    return std::nullopt;
  return v.Scalar();
}

/// The parsed value, or the matching error.
template <class Result>
auto checked(const param_reader& r, std::string_view key, const YAML::Node& v,
             std::string_view expected, Result res) {
  if (res.status == scalar_status::range)
    throw r.error(key, fmt::format("value {} is out of range (at most {})",
                                   describe(v), UINT64_MAX));
  if (res.status != scalar_status::ok)
    fail_type(r, key, v, expected);
  return res.value;
}

/// The plain scalar text of `v`, or the "expected" error.
std::string text_of(const param_reader& r, std::string_view key,
                    const YAML::Node& v, std::string_view expected) {
  auto text = plain_scalar(v);
  if (!text)
    fail_type(r, key, v, expected);
  return *text;
}

[[noreturn]] void fail_time_limit(const param_reader& r, std::string_view key,
                                  std::string_view value) {
  throw r.error(key, fmt::format("{} exceeds {}", value, max_time_reason));
}

/// `t`, or the time-limit error (kb::max_time_ps).
SimTime bounded(const param_reader& r, std::string_view key, uint64_t t) {
  if (t > max_time_ps)
    fail_time_limit(r, key, fmt::format("{} ps", t));
  return SimTime{t};
}

SimTime convert_ns(const param_reader& r, std::string_view key,
                   const YAML::Node& v) {
  auto res = parse_fixed(text_of(r, key, v, k_ns), 3);
  if (res.value.negative && res.value.magnitude != 0)
    fail_type(r, key, v, k_ns);
  if (res.status == scalar_status::range)
    fail_time_limit(r, key, fmt::format("{} ns", v.Scalar()));
  return bounded(r, key, checked(r, key, v, k_ns, res).magnitude);
}

} // namespace

std::string describe(const YAML::Node& v) {
  switch (v.Type()) {
  case YAML::NodeType::Map:
    return "a map";
  case YAML::NodeType::Sequence:
    return "a list";
  case YAML::NodeType::Scalar:
    return v.Tag() == "!" ? fmt::format("the string \"{}\"", v.Scalar())
                          : fmt::format("'{}'", v.Scalar());
  default:
    return "nothing";
  }
}

void fail_type(const param_reader& r, std::string_view key, const YAML::Node& v,
               std::string_view expected) {
  throw r.error(key, fmt::format("expected {}, got {}", expected, describe(v)));
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

template <>
uint64_t convert_value<uint64_t>(const param_reader& r, std::string_view key,
                                 const YAML::Node& v) {
  return checked(r, key, v, k_uint, parse_uint(text_of(r, key, v, k_uint)));
}

template <>
uint32_t convert_value<uint32_t>(const param_reader& r, std::string_view key,
                                 const YAML::Node& v) {
  const uint64_t x = convert_value<uint64_t>(r, key, v);
  if (x > UINT32_MAX)
    throw r.error(key, fmt::format("value {} is out of range (at most {})",
                                   describe(v), UINT32_MAX));
  return static_cast<uint32_t>(x);
}

template <>
int64_t convert_value<int64_t>(const param_reader& r, std::string_view key,
                               const YAML::Node& v) {
  constexpr std::string_view expected = "an integer";
  return checked(r, key, v, expected, parse_int(text_of(r, key, v, expected)));
}

template <>
double convert_value<double>(const param_reader& r, std::string_view key,
                             const YAML::Node& v) {
  constexpr std::string_view expected = "a number";
  return checked(r, key, v, expected,
                 parse_double(text_of(r, key, v, expected)));
}

template <>
bool convert_value<bool>(const param_reader& r, std::string_view key,
                         const YAML::Node& v) {
  auto text = plain_scalar(v);
  std::optional<bool> b = text ? parse_bool(*text) : std::nullopt;
  if (!b)
    fail_type(r, key, v, "true or false");
  return *b;
}

template <>
std::string convert_value<std::string>(const param_reader& r,
                                       std::string_view key,
                                       const YAML::Node& v) {
  if (!v.IsScalar())
    fail_type(r, key, v, "a string");
  return v.Scalar();
}

template <>
Cycles convert_value<Cycles>(const param_reader& r, std::string_view key,
                             const YAML::Node& v) {
  // Every clock period is >= 1 ps, so a count of cycles is bounded like a
  // time; the topology checks cycles x clock once the clock is known.
  const uint64_t n = convert_value<uint64_t>(r, key, v);
  if (n > max_time_ps)
    throw r.error(key, fmt::format("{} cycles exceeds {}", n, max_time_reason));
  return Cycles{n};
}

template <>
SimTime convert_value<SimTime>(const param_reader& r, std::string_view key,
                               const YAML::Node& v) {
  if (ends_with(key, "_ps"))
    return convert_ps(r, key, v);
  if (ends_with(key, "_ns"))
    return convert_ns(r, key, v);
  throw std::invalid_argument(
      fmt::format("param_reader: time key '{}' must end in _ps or _ns", key));
}

template <>
Bandwidth convert_value<Bandwidth>(const param_reader& r, std::string_view key,
                                   const YAML::Node& v) {
  auto res = parse_fixed(text_of(r, key, v, k_gbps), 3);
  if (res.status == scalar_status::syntax)
    fail_type(r, key, v, k_gbps);
  if (res.value.negative ||
      (res.status == scalar_status::ok && res.value.magnitude == 0))
    throw r.error(key, "bandwidth must be > 0");
  if (res.status == scalar_status::inexact)
    throw r.error(key, fmt::format("bandwidth {} is not a whole number of "
                                   "MB/s (at most 3 decimals in GB/s)",
                                   describe(v)));
  return Bandwidth{checked(r, key, v, k_gbps, res).magnitude};
}

SimTime convert_ps(const param_reader& r, std::string_view key,
                   const YAML::Node& v) {
  auto res = parse_uint(text_of(r, key, v, k_ps));
  if (res.status == scalar_status::range)
    fail_time_limit(r, key, fmt::format("{} ps", v.Scalar()));
  return bounded(r, key, checked(r, key, v, k_ps, res));
}

} // namespace kb::detail
