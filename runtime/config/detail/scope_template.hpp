#pragma once
// One level of the hierarchy (system, sip, cube or the PE template) as read
// from YAML once: its components and its links, before instantiation.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/config/impl_doc.hpp"
#include "runtime/config/impl_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/config/topology_spec.hpp"

namespace kb::detail {

struct component_tmpl {
  std::string name;
  std::string kind;
  std::string impl;
  param_reader params;
  source_loc where;
  std::string path; // YAML key path of the entry, for errors
};

struct link_tmpl {
  std::string from; // pattern relative to the scope
  std::string to;
  SimTime latency;
  std::optional<Bandwidth> bandwidth;
  uint32_t queue_depth = 0;
  bool bidirectional = false;
  param_reader item; // the YAML entry, for errors
  source_loc where;
};

/// Reads `scope.components`. Names `<instance_prefix><digits>` are reserved
/// for the child instances (pe0, cube1, ...).
std::vector<component_tmpl> read_components(const param_reader& scope,
                                            std::string_view instance_prefix,
                                            const impl_catalog& impls);

/// Reads `scope.links` with explicit latency and optional bandwidth.
std::vector<link_tmpl> read_fabric_links(const param_reader& scope,
                                         uint32_t default_depth);

/// Reads `pe_template.links` (wires of `wire_latency`, no bandwidth limit),
/// or the default wires when the key is absent.
std::vector<link_tmpl> read_pe_links(const param_reader& pe_template,
                                     const std::vector<component_tmpl>& comps,
                                     SimTime wire_latency,
                                     uint32_t default_depth);

/// One directed link of a scope instance: its ends as positions among the
/// instance's nodes in id order, and the template it came from.
struct link_ref {
  uint32_t src = 0;
  uint32_t dst = 0;
  const link_tmpl* tmpl = nullptr;
};

/// Appends the links of one instance of a scope. `ids` are the ids of the
/// instance's nodes without the instance's prefix, sorted; `lead` is that
/// prefix with its '.' (empty for the whole machine), used only in errors.
/// Every instance of a scope holds the same relative ids in the same order,
/// so one expansion serves them all.
void expand_links(const std::vector<link_tmpl>& links, std::string_view lead,
                  const std::vector<std::string_view>& ids,
                  std::vector<link_ref>& out);

} // namespace kb::detail
