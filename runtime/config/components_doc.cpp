#include "runtime/config/components_doc.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace kb {

namespace {

constexpr std::string_view yaml_header =
  "# kernbench component catalog: every implementation a topology may name in\n"
  "# `impl:`, its node kind, the keys it reads (type, default, meaning) and the\n"
  "# ports it sends on. A component in topology.yaml names an impl; that impl's\n"
  "# kind must be the component's kind (its name, unless it sets `kind:`).\n"
  "#\n"
  "# Generated from the implementations' own declarations (docs/adr/0037):\n"
  "# `kernbench list-components --yaml` prints it. Do not edit it by hand:\n"
  "# `python3 scripts/components_doc.py --write` rewrites it, and the test\n"
  "# docs.components fails when it differs from the build.\n";

/// Markdown table cell text: `|` and `*` escaped, so a formula stays text.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '*')
      out += '\\';
    out += c;
  }
  return out;
}

} // namespace

std::string components_yaml(const impl_catalog& impls) {
  YAML::Emitter y;
  y << YAML::BeginMap << YAML::Key << "kinds" << YAML::Value << YAML::BeginMap;
  for (const std::string& kind : impls.kinds()) {
    y << YAML::Key << kind << YAML::Value << YAML::BeginMap;
    for (const impl_doc* d : impls.of_kind(kind)) {
      y << YAML::Key << d->impl << YAML::Value << YAML::BeginMap;
      y << YAML::Key << "description" << YAML::Value << d->description;
      if (!d->params.empty()) {
        y << YAML::Key << "keys" << YAML::Value << YAML::BeginMap;
        for (const param_doc& p : d->params) {
          y << YAML::Key << p.name << YAML::Value << YAML::BeginMap;
          y << YAML::Key << "type" << YAML::Value << p.type;
          if (!p.default_value.empty())
            y << YAML::Key << "default" << YAML::Value << YAML::DoubleQuoted << p.default_value;
          y << YAML::Key << "doc" << YAML::Value << p.doc << YAML::EndMap;
        }
        y << YAML::EndMap;
      }
      if (!d->ports.empty()) {
        y << YAML::Key << "ports" << YAML::Value << YAML::BeginMap;
        for (const port_doc& p : d->ports)
          y << YAML::Key << std::string(p.name) << YAML::Value << std::string(p.to);
        y << YAML::EndMap;
      }
      y << YAML::EndMap;
    }
    y << YAML::EndMap;
  }
  y << YAML::EndMap << YAML::EndMap;
  return std::string(yaml_header) + "\n" + y.c_str() + "\n";
}

std::string components_markdown(const impl_catalog& impls) {
  std::string s;
  for (const std::string& kind : impls.kinds()) {
    s += fmt::format("### Kind `{}`\n\n", kind);
    for (const impl_doc* d : impls.of_kind(kind)) {
      s += fmt::format("#### `{}`\n\n{}\n\n", d->impl, cell(d->description));
      if (d->params.empty()) {
        s += "No keys.\n\n";
      } else {
        s += "| key | type | default | meaning |\n| --- | --- | --- | --- |\n";
        for (const param_doc& p : d->params)
          s += fmt::format("| `{}` | {} | {} | {} |\n", p.name, p.type,
                           p.default_value.empty() ? "required" : cell(p.default_value),
                           cell(p.doc));
        s += "\n";
      }
      if (!d->ports.empty()) {
        std::string ports;
        for (const port_doc& p : d->ports)
          ports += fmt::format("{}`{}` → {}", ports.empty() ? "" : ", ", p.name, p.to);
        s += "Ports: " + ports + ".\n\n";
      }
    }
  }
  if (!s.empty())
    s.pop_back(); // one newline at the end
  return s;
}

} // namespace kb
