#include "runtime/config/topology_loader.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "runtime/config/detail/machine_tree.hpp"
#include "runtime/config/detail/scope_template.hpp"
#include "runtime/config/machine_limits.hpp"
#include "runtime/config/yaml_source.hpp"

namespace kb {

namespace {

using detail::component_tmpl;
using detail::link_tmpl;

/// A count or depth that must be at least 1.
uint32_t positive(const param_reader& r, std::string_view key,
                  uint32_t fallback, std::string_view why = {}) {
  const uint32_t v = r.get_or<uint32_t>(key, fallback);
  if (v == 0)
    throw r.error(key, why.empty() ? std::string("must be >= 1")
                                   : fmt::format("must be >= 1: {}", why));
  return v;
}

pe_grid read_pe_layout(const param_reader& cube) {
  const param_reader r = cube.map("pe_layout");
  r.unknown_keys({"rows", "cols", "count"});
  if (r.has("count")) {
    if (r.has("rows") || r.has("cols"))
      throw r.error("count", "give either count or rows and cols, not both");
    return {1, positive(r, "count", 1)};
  }
  if (!r.has("rows") || !r.has("cols"))
    throw r.error({}, "give either count or rows and cols");
  const pe_grid g{positive(r, "rows", 1), positive(r, "cols", 1)};
  if (uint64_t{g.rows} * g.cols > std::numeric_limits<uint32_t>::max())
    throw r.error({}, "too many PEs");
  return g;
}

/// All levels of the hierarchy, read once from YAML.
struct templates {
  std::vector<component_tmpl> system_nodes, sip_nodes, cube_nodes, pe_nodes;
  std::vector<link_tmpl> system_links, sip_links, cube_links, pe_links;
};

/// `n` cycles of `clock`, or an error naming `key` if that time is beyond
/// kb::max_time_ps.
SimTime cycles_time(const param_reader& r, std::string_view key, Cycles n,
                    const sim_clock& clock) {
  const auto t = checked_to_time(clock, n);
  if (!t || !representable(*t))
    throw r.error(key, fmt::format("{} cycles x clock_period_ps {} exceeds {}", n.count(),
                                   clock.period_ps(), max_time_reason));
  return *t;
}

/// Every `cycles` parameter, multiplied by the clock, must be a time the
/// engine can add up (kb::max_time_ps).
void check_cycle_params(const std::vector<component_tmpl>& comps,
                        const impl_catalog& impls, const sim_clock& clock) {
  for (const component_tmpl& c : comps)
    if (const impl_doc* doc = impls.find(c.impl))
      for (const param_doc& p : doc->params)
        if (p.type == "cycles" && c.params.has(p.name))
          (void)cycles_time(c.params, p.name, c.params.required<Cycles>(p.name), clock);
}

/// Refuses more SIPs, cubes per SIP or PEs per cube than a global address
/// can number (8 bits each, runtime/address.hpp): such a machine used to be
/// built (100,000 PEs: 24 s and 1.7 GB) and then refused by the name of its
/// first memory past 255.
void check_address_limits(const topology_spec& spec, const param_reader& system,
                          const param_reader& sip, const param_reader& cube) {
  constexpr uint64_t limit = max_address_count;
  const auto why = [&](std::string_view what) {
    return fmt::format("more than the limit of {} {} (a global address holds the number in 8 "
                       "bits: docs/adr/0003-address-encoding.md)",
                       limit, what);
  };
  if (spec.sips > limit)
    throw system.error("sips", fmt::format("{}: {}", spec.sips, why("SIPs")));
  if (spec.cubes_per_sip > limit)
    throw sip.error("cubes", fmt::format("{}: {}", spec.cubes_per_sip, why("cubes per SIP")));
  if (spec.pe_layout.count() > limit)
    throw cube.error("pe_layout",
                     fmt::format("{} PEs: {}", spec.pe_layout.count(), why("PEs per cube")));
}

/// Refuses, before instantiating anything, a machine of more nodes than
/// kb::max_topology_nodes.
void check_node_count(const topology_spec& spec, const templates& t, const param_reader& cube) {
  const uint128 per_cube =
      t.cube_nodes.size() + uint128{spec.pe_layout.count()} * t.pe_nodes.size();
  const uint128 per_sip = t.sip_nodes.size() + uint128{spec.cubes_per_sip} * per_cube;
  const uint128 nodes = t.system_nodes.size() + uint128{spec.sips} * per_sip;
  if (nodes > max_topology_nodes)
    throw cube.error(
        "pe_layout",
        fmt::format("{} SIP(s) x {} cube(s) x {} PE(s) make {} nodes, more than the limit of "
                    "{} (every node is an actor with its own queues and links; a larger "
                    "machine would not fit in memory)",
                    spec.sips, spec.cubes_per_sip, spec.pe_layout.count(),
                    static_cast<uint64_t>(std::min<uint128>(nodes, UINT64_MAX)),
                    max_topology_nodes));
}

} // namespace

topology_spec parse_topology(const YAML::Node& doc, const std::string& file,
                             const impl_catalog& impls) {
  const param_reader root = param_reader::root(doc, file);
  root.unknown_keys({"clock_period_ps", "pe_wire_latency_cycles",
                     "pe_queue_depth", "link_queue_depth", "fabric_credits",
                     "system", "sip", "cube"});
  topology_spec spec;
  spec.file = file;
  spec.clock_period_ps = root.get_or<uint64_t>("clock_period_ps", 1000);
  if (spec.clock_period_ps == 0)
    throw root.error("clock_period_ps", "must be >= 1");
  spec.pe_wire_latency_cycles =
      positive(root, "pe_wire_latency_cycles", 1,
               "a zero-latency wire cannot be synchronised conservatively");
  spec.pe_queue_depth = positive(root, "pe_queue_depth", 4);
  spec.link_queue_depth = positive(root, "link_queue_depth", 4);
  spec.fabric_credits = root.get_or<bool>("fabric_credits", false);
  if (spec.clock_period_ps > max_time_ps)
    throw root.error("clock_period_ps", fmt::format("{} ps exceeds {}", spec.clock_period_ps,
                                                    max_time_reason));
  const SimTime wire = cycles_time(root, "pe_wire_latency_cycles",
                                   Cycles{spec.pe_wire_latency_cycles}, spec.clock());

  const param_reader system = root.map_or_empty("system");
  system.unknown_keys({"sips", "components", "links"});
  const param_reader sip = root.map_or_empty("sip");
  sip.unknown_keys({"cubes", "components", "links"});
  const param_reader cube = root.map("cube");
  cube.unknown_keys({"pe_layout", "pe_template", "components", "links"});
  const param_reader pe = cube.map("pe_template");
  pe.unknown_keys({"components", "links"});

  spec.sips = positive(system, "sips", 1);
  spec.cubes_per_sip = positive(sip, "cubes", 1);
  spec.pe_layout = read_pe_layout(cube);
  check_address_limits(spec, system, sip, cube);

  templates t;
  t.system_nodes = detail::read_components(system, "sip", impls);
  t.sip_nodes = detail::read_components(sip, "cube", impls);
  t.cube_nodes = detail::read_components(cube, "pe", impls);
  t.pe_nodes = detail::read_components(pe, "", impls);
  t.system_links = detail::read_fabric_links(system, spec.link_queue_depth);
  t.sip_links = detail::read_fabric_links(sip, spec.link_queue_depth);
  t.cube_links = detail::read_fabric_links(cube, spec.link_queue_depth);
  t.pe_links = detail::read_pe_links(pe, t.pe_nodes, wire, spec.pe_queue_depth);
  for (const auto* level : {&t.system_nodes, &t.sip_nodes, &t.cube_nodes, &t.pe_nodes})
    check_cycle_params(*level, impls, spec.clock());
  check_node_count(spec, t, cube);

  // -- nodes and links, in id order -------------------------------------------
  const detail::machine_tree tree({{&t.system_nodes, &t.system_links, "sip", spec.sips},
                                   {&t.sip_nodes, &t.sip_links, "cube", spec.cubes_per_sip},
                                   {&t.cube_nodes, &t.cube_links, "pe", spec.pe_layout.count()},
                                   {&t.pe_nodes, &t.pe_links, "", 0}});
  tree.check_unique_names();
  spec.nodes = tree.nodes();
  spec.links = tree.links(spec.nodes);
  return spec;
}

YAML::Node load_topology_document(const std::string& path) {
  YAML::Node doc = load_yaml_file(path);
  // A result names its schema and carries the machine it ran.
  if (!doc.IsMap() || !doc["schema_version"] || !doc["machine"])
    return doc;
  YAML::Node machine = doc["machine"];
  if (!machine.IsMap())
    throw config_error({path, line_of(machine.Mark())}, "machine",
                       "this kernbench result carries no machine to rerun (it was written "
                       "without one); give its topology file instead");
  return machine;
}

topology_spec load_topology(const std::string& path, const impl_catalog& impls) {
  return parse_topology(load_topology_document(path), path, impls);
}

} // namespace kb
