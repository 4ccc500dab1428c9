#pragma once
// `--set KEY=VALUE`: changes one key of a parsed YAML document before it is
// read, so a sweep (or a user) can vary any config key without editing the
// file. Keys are dotted paths; a `components` level may be left out, so
// `cube.pe_template.pe_gemm.mac_rows` names
// `cube.pe_template.components.pe_gemm.mac_rows`.

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace kb {

struct yaml_override {
  std::string key;   ///< dotted path as the user wrote it
  std::string value; ///< YAML text of the new value (a scalar, list or map)
};

/// Splits "KEY=VALUE". Throws std::invalid_argument naming `opt` and the
/// text when there is no '=' or the key or value is empty.
yaml_override parse_override(const std::string& text, const std::string& opt = "--set");

/// Sets `o.key` in `doc` to `o.value` parsed as YAML. Every segment but the
/// last must exist; the last must exist too, unless its parent is a
/// component (a map with an `impl` key): then the topology loader checks it
/// against the kind's parameters. Throws std::invalid_argument naming the
/// key, the segment that is missing and the keys that are there.
void apply_override(YAML::Node& doc, const yaml_override& o, const std::string& opt = "--set");

} // namespace kb
