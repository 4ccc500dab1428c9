#pragma once
// A YAML document as JSON (the resolved topology in `run --json`'s
// `machine`, so that a result carries the machine it ran on): maps keep the
// document's key order, sequences their order; a plain scalar that reads
// whole as an integer or a finite decimal is a number, true/false a bool,
// null or ~ (or nothing) null; everything else, and every quoted scalar, a
// string.

#include "runtime/io/json_writer.hpp"

#include <yaml-cpp/yaml.h>

namespace kb {

void write_yaml_as_json(json_writer& j, const YAML::Node& n);

} // namespace kb
