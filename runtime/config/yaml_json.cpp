#include "runtime/config/yaml_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace kb {
namespace {

/// The whole of `s` as a T, or false.
template <class T>
bool whole(const std::string& s, T& v) {
  const char* end = s.data() + s.size();
  const auto [p, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && p == end && !s.empty();
}

void write_scalar(json_writer& j, const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") { // quoted: a string whatever it reads as
    j.value(s);
    return;
  }
  uint64_t u = 0;
  int64_t i = 0;
  double d = 0;
  if (whole(s, u))
    j.value(u);
  else if (whole(s, i))
    j.value(i);
  else if (whole(s, d) && std::isfinite(d))
    j.exact_value(d);
  else if (s == "true" || s == "false")
    j.value(s == "true");
  else if (s == "null" || s == "~")
    j.null_value();
  else
    j.value(s);
}

} // namespace

void write_yaml_as_json(json_writer& j, const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Map:
    j.begin_object();
    for (const auto& kv : n) {
      j.key(kv.first.Scalar());
      write_yaml_as_json(j, kv.second);
    }
    j.end_object();
    return;
  case YAML::NodeType::Sequence:
    j.begin_array();
    for (const auto& item : n)
      write_yaml_as_json(j, item);
    j.end_array();
    return;
  case YAML::NodeType::Scalar:
    write_scalar(j, n);
    return;
  case YAML::NodeType::Null:
  case YAML::NodeType::Undefined:
    j.null_value();
    return;
  }
}

} // namespace kb
