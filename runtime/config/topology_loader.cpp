#include "runtime/config/topology_loader.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "runtime/config/detail/scope_template.hpp"
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

class node_builder {
public:
  explicit node_builder(std::vector<node_spec>& out) : out_(out) {}

  void instantiate(const std::vector<component_tmpl>& comps,
                   const std::string& prefix) {
    for (const component_tmpl& c : comps) {
      std::string id = prefix.empty() ? c.name : prefix + "." + c.name;
      auto [it, fresh] = seen_.emplace(id, c.where);
      if (!fresh)
        throw config_error(c.where, c.path,
                           fmt::format("duplicate node id '{}' (first "
                                       "declared at {})",
                                       id, it->second.str()));
      out_.push_back({std::move(id), c.kind, c.impl, c.params, c.where});
    }
  }

private:
  std::vector<node_spec>& out_;
  std::unordered_map<std::string, source_loc> seen_;
};

std::string child(const std::string& prefix, std::string_view name,
                  uint32_t index) {
  return prefix.empty() ? fmt::format("{}{}", name, index)
                        : fmt::format("{}.{}{}", prefix, name, index);
}

void check_unique_links(const std::vector<link_spec>& links) {
  for (std::size_t i = 1; i < links.size(); ++i) {
    const link_spec& a = links[i - 1];
    const link_spec& b = links[i];
    if (a.src == b.src && a.dst == b.dst)
      throw config_error(b.where, "",
                         fmt::format("duplicate link {} -> {} (first declared "
                                     "at {})",
                                     b.src, b.dst, a.where.str()));
  }
}

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
                        const kind_catalog& kinds, const sim_clock& clock) {
  for (const component_tmpl& c : comps)
    if (const kind_doc* doc = kinds.find(c.kind))
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
  constexpr uint64_t limit = uint64_t{1} << 8;
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

/// Sorts `v` stably by `less`, moving each element once: a node_spec's move
/// copies its YAML handles, and a sort would move each element many times.
template <class T, class Less>
void sort_by(std::vector<T>& v, Less less) {
  std::vector<uint32_t> order(v.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return less(v[a], v[b]); });
  std::vector<T> sorted;
  sorted.reserve(v.size());
  for (uint32_t i : order)
    sorted.push_back(std::move(v[i]));
  v = std::move(sorted);
}

} // namespace

topology_spec parse_topology(const YAML::Node& doc, const std::string& file,
                             const impl_registry& impls,
                             const kind_catalog& kinds) {
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
  t.system_nodes = detail::read_components(system, "sip", impls, kinds);
  t.sip_nodes = detail::read_components(sip, "cube", impls, kinds);
  t.cube_nodes = detail::read_components(cube, "pe", impls, kinds);
  t.pe_nodes = detail::read_components(pe, "", impls, kinds);
  t.system_links = detail::read_fabric_links(system, spec.link_queue_depth);
  t.sip_links = detail::read_fabric_links(sip, spec.link_queue_depth);
  t.cube_links = detail::read_fabric_links(cube, spec.link_queue_depth);
  t.pe_links = detail::read_pe_links(pe, t.pe_nodes, wire, spec.pe_queue_depth);
  for (const auto* level : {&t.system_nodes, &t.sip_nodes, &t.cube_nodes, &t.pe_nodes})
    check_cycle_params(*level, kinds, spec.clock());
  check_node_count(spec, t, cube);

  // -- nodes ------------------------------------------------------------------
  spec.nodes.reserve(t.system_nodes.size() +
                     spec.sips * (t.sip_nodes.size() +
                                  spec.cubes_per_sip * (t.cube_nodes.size() +
                                                        spec.pe_layout.count() * t.pe_nodes.size())));
  node_builder nodes(spec.nodes);
  nodes.instantiate(t.system_nodes, "");
  for (uint32_t s = 0; s < spec.sips; ++s) {
    const std::string sip_id = child("", "sip", s);
    nodes.instantiate(t.sip_nodes, sip_id);
    for (uint32_t c = 0; c < spec.cubes_per_sip; ++c) {
      const std::string cube_id = child(sip_id, "cube", c);
      nodes.instantiate(t.cube_nodes, cube_id);
      for (uint32_t p = 0; p < spec.pe_layout.count(); ++p)
        nodes.instantiate(t.pe_nodes, child(cube_id, "pe", p));
    }
  }
  sort_by(spec.nodes, [](const node_spec& a, const node_spec& b) { return a.id < b.id; });
  std::vector<std::string> ids;
  ids.reserve(spec.nodes.size());
  for (const node_spec& n : spec.nodes)
    ids.push_back(n.id);

  // -- links, innermost scopes first ------------------------------------------
  for (uint32_t s = 0; s < spec.sips; ++s) {
    const std::string sip_id = child("", "sip", s);
    for (uint32_t c = 0; c < spec.cubes_per_sip; ++c) {
      const std::string cube_id = child(sip_id, "cube", c);
      for (uint32_t p = 0; p < spec.pe_layout.count(); ++p)
        detail::expand_links(t.pe_links, child(cube_id, "pe", p), ids,
                             spec.links);
      detail::expand_links(t.cube_links, cube_id, ids, spec.links);
    }
    detail::expand_links(t.sip_links, sip_id, ids, spec.links);
  }
  detail::expand_links(t.system_links, "", ids, spec.links);
  sort_by(spec.links, [](const link_spec& a, const link_spec& b) {
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  });
  check_unique_links(spec.links);
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

topology_spec load_topology(const std::string& path, const impl_registry& impls,
                            const kind_catalog& kinds) {
  return parse_topology(load_topology_document(path), path, impls, kinds);
}

} // namespace kb
