#pragma once
// A minimal streaming JSON writer (objects, arrays, numbers, strings) that
// produces the same bytes for the same calls: reports must be byte-identical
// across thread and process counts.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

class json_writer {
public:
  json_writer& begin_object();
  json_writer& end_object();
  json_writer& begin_array();
  json_writer& end_array();
  json_writer& key(std::string_view k);
  json_writer& value(std::string_view s);
  json_writer& value(const char* s) { return value(std::string_view{s}); }
  json_writer& value(uint64_t v);
  json_writer& value(int64_t v);
  json_writer& value(double v); ///< 6 significant digits (rates)
  /// The shortest decimal that reads back as `v` exactly (a config value).
  json_writer& exact_value(double v);
  json_writer& value(bool v);
  json_writer& null_value();
  /// `null` when empty.
  template <class T>
  json_writer& value(const std::optional<T>& v) {
    return v ? value(*v) : null_value();
  }
  template <class T>
  json_writer& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  const std::string& str() const { return out_; }

private:
  void comma();
  void write_string(std::string_view s);
  std::string out_;
  std::vector<bool> first_; // per open container: no element yet
  bool after_key_ = false;
};

} // namespace kb
