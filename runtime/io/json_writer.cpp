#include "runtime/io/json_writer.hpp"

#include <fmt/format.h>

namespace kb {

void json_writer::comma() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back())
      out_ += ',';
    first_.back() = false;
    out_ += '\n';
    out_.append(first_.size() * 2, ' ');
  }
}

json_writer& json_writer::begin_object() {
  comma();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

json_writer& json_writer::end_object() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) {
    out_ += '\n';
    out_.append(first_.size() * 2, ' ');
  }
  out_ += '}';
  if (first_.empty())
    out_ += '\n';
  return *this;
}

json_writer& json_writer::begin_array() {
  comma();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

json_writer& json_writer::end_array() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) {
    out_ += '\n';
    out_.append(first_.size() * 2, ' ');
  }
  out_ += ']';
  return *this;
}

json_writer& json_writer::key(std::string_view k) {
  comma();
  write_string(k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

json_writer& json_writer::value(std::string_view s) {
  comma();
  write_string(s);
  return *this;
}

void json_writer::write_string(std::string_view s) {
  out_ += '"';
  for (char c : s) {
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\n': out_ += "\\n"; break;
      case '\t': out_ += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out_ += fmt::format("\\u{:04x}", c);
        else
          out_ += c;
    }
  }
  out_ += '"';
}

json_writer& json_writer::value(uint64_t v) {
  comma();
  out_ += std::to_string(v);
  return *this;
}

json_writer& json_writer::value(int64_t v) {
  comma();
  out_ += std::to_string(v);
  return *this;
}

json_writer& json_writer::value(double v) {
  comma();
  out_ += fmt::format("{:.6g}", v);
  return *this;
}

json_writer& json_writer::exact_value(double v) {
  comma();
  out_ += fmt::format("{}", v);
  return *this;
}

json_writer& json_writer::value(bool v) {
  comma();
  out_ += v ? "true" : "false";
  return *this;
}

json_writer& json_writer::null_value() {
  comma();
  out_ += "null";
  return *this;
}

} // namespace kb
