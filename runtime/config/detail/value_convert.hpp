#pragma once
// Conversion of one YAML value into a typed parameter, with the error texts
// of param_reader ("expected a non-negative integer, got '-3'").

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "runtime/config/param_reader.hpp"

namespace kb::detail {

/// How a value looks in an error: `'42'`, `the string "42"`, `a map`,
/// `a list`, `nothing`.
std::string describe(const YAML::Node& v);

/// Throws "expected <expected>, got <describe(v)>" about `key` of `r`.
[[noreturn]] void fail_type(const param_reader& r, std::string_view key,
                            const YAML::Node& v, std::string_view expected);

bool ends_with(std::string_view s, std::string_view suffix);

/// The value `v` of `key` in `r` as a T; throws config_error if it is not.
template <class T>
T convert_value(const param_reader& r, std::string_view key,
                const YAML::Node& v);

template <>
uint64_t convert_value<uint64_t>(const param_reader&, std::string_view,
                                 const YAML::Node&);
template <>
uint32_t convert_value<uint32_t>(const param_reader&, std::string_view,
                                 const YAML::Node&);
template <>
int64_t convert_value<int64_t>(const param_reader&, std::string_view,
                               const YAML::Node&);
template <>
double convert_value<double>(const param_reader&, std::string_view,
                             const YAML::Node&);
template <>
bool convert_value<bool>(const param_reader&, std::string_view,
                         const YAML::Node&);
template <>
std::string convert_value<std::string>(const param_reader&, std::string_view,
                                       const YAML::Node&);
template <>
Cycles convert_value<Cycles>(const param_reader&, std::string_view,
                             const YAML::Node&);
template <>
SimTime convert_value<SimTime>(const param_reader&, std::string_view,
                               const YAML::Node&);
template <>
Bandwidth convert_value<Bandwidth>(const param_reader&, std::string_view,
                                   const YAML::Node&);

/// A non-negative integer number of picoseconds, whatever the key's name.
SimTime convert_ps(const param_reader& r, std::string_view key,
                   const YAML::Node& v);

} // namespace kb::detail
