#pragma once
// Reading YAML documents so that every failure is a `config_error`.

#include <cstddef>
#include <string>

#include <yaml-cpp/yaml.h>

namespace kb {

/// 1-based line of a yaml-cpp mark; 0 for a null mark (a node made in code).
std::size_t line_of(const YAML::Mark& mark);

/// Parses the file at `path`. A missing file or malformed YAML becomes a
/// `config_error` naming `path` and the parser's line.
YAML::Node load_yaml_file(const std::string& path);

/// Parses `text` as if it were the file `name` (for errors only).
YAML::Node load_yaml_text(const std::string& text, const std::string& name);

} // namespace kb
