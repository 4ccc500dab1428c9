#pragma once
// Reading YAML documents so that every failure is a `config_error`.

#include <cstddef>
#include <string>

#include <yaml-cpp/yaml.h>

namespace kb {

/// 1-based line of a yaml-cpp mark; 0 for a null mark (a node made in code).
std::size_t line_of(const YAML::Mark& mark);

/// The largest document load_yaml_file reads.
inline constexpr std::size_t max_yaml_bytes = std::size_t{256} << 20;

/// Parses the file (or pipe) at `path`. A missing file, a directory or a
/// device, a document over max_yaml_bytes or malformed YAML becomes a
/// `config_error` naming `path` and the parser's line.
YAML::Node load_yaml_file(const std::string& path);

/// Parses `text` as if it were the file `name` (for errors only).
YAML::Node load_yaml_text(const std::string& text, const std::string& name);

} // namespace kb
