#pragma once
// Loading config/topology.yaml into a validated, expanded topology_spec.
// The schema is documented at the top of config/topology.yaml and in
// docs/config.md.

#include <string>

#include <yaml-cpp/yaml.h>

#include "runtime/config/impl_doc.hpp"
#include "runtime/config/topology_spec.hpp"

namespace kb {

/// Loads, validates and expands the topology at `path`. Every component's
/// impl must be in `impls` with the component's kind, and its parameters
/// must be the ones that impl declares. Throws `config_error`
/// (file:line: key.path: message) for any bad input.
topology_spec load_topology(const std::string& path, const impl_catalog& impls);

/// The topology document at `path`: a topology file (YAML or JSON), or a
/// result of `kernbench run --json`, whose `machine` (the topology as that
/// run resolved it) it then is, so that a result reruns itself.
YAML::Node load_topology_document(const std::string& path);

/// As `load_topology`, from a parsed document; `file` names it in errors.
topology_spec parse_topology(const YAML::Node& doc, const std::string& file,
                             const impl_catalog& impls);

} // namespace kb
