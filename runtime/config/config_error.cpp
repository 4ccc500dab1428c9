#include "runtime/config/config_error.hpp"

#include <fmt/format.h>

namespace kb {

namespace {

std::string format_error(const source_loc& where, const std::string& key_path,
                         const std::string& message) {
  std::string out = where.str();
  if (!key_path.empty())
    out += fmt::format(": {}", key_path);
  out += fmt::format(": {}", message);
  return out;
}

} // namespace

std::string source_loc::str() const {
  return line == 0 ? file.str() : fmt::format("{}:{}", file.str(), line);
}

config_error::config_error(source_loc where, std::string key_path,
                           std::string message)
    : std::runtime_error(format_error(where, key_path, message)),
      where_(std::move(where)), key_path_(std::move(key_path)),
      message_(std::move(message)) {}

} // namespace kb
