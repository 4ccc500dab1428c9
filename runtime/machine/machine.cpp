#include "runtime/machine/machine.hpp"
#include "runtime/parallel_indices.hpp"
#include "runtime/machine/partition_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace kb {

machine_context context_of(const topology_spec& topo) {
  machine_context ctx;
  ctx.clock = topo.clock();
  ctx.wire_latency = ctx.clock.to_time(Cycles{topo.pe_wire_latency_cycles});
  ctx.topology = &topo;
  return ctx;
}

fabric_inputs fabric_inputs_of(const topology_spec& topo, const kind_registry& kinds,
                               const node_filter& here) {
  fabric_inputs in;
  in.file = topo.file;
  in.nodes.reserve(topo.nodes.size());
  for (const auto& n : topo.nodes)
    in.nodes.push_back({n.id, kinds.fabric_of(n.kind)});
  if (here) {
    in.here.resize(topo.nodes.size());
    for (size_t i = 0; i < topo.nodes.size(); ++i)
      in.here[i] = here(topo.nodes[i]) ? 1 : 0;
  }
  // Node ids are positions in topo.nodes (sorted by id): find by name, by
  // hash (a binary search compares long common prefixes, "sip0.cube0.pe1…").
  std::unordered_map<std::string_view, node_id> ids;
  ids.reserve(topo.nodes.size());
  for (size_t i = 0; i < topo.nodes.size(); ++i)
    ids.emplace(topo.nodes[i].id, static_cast<node_id>(i));
  auto id_of = [&](const std::string& name) {
    const auto it = ids.find(name);
    return it == ids.end() ? static_cast<node_id>(topo.nodes.size()) : it->second;
  };
  in.links.reserve(topo.links.size());
  const std::string* last = nullptr; // a source's links come together
  node_id src = 0;
  for (const auto& l : topo.links) {
    if (!last || *last != l.src) {
      last = &l.src;
      src = id_of(l.src);
    }
    in.links.push_back({src, id_of(l.dst), l.latency.ps()});
  }
  return in;
}

fabric_map build_fabric_map(fabric_inputs in) {
  try {
    return fabric_map::build(std::move(in.nodes), std::move(in.links), std::move(in.here));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", in.file, e.what()));
  }
}

std::shared_ptr<const fabric_map> build_fabric(const topology_spec& topo,
                                               const kind_registry& kinds,
                                               const node_filter& here) {
  return std::make_shared<const fabric_map>(
    build_fabric_map(fabric_inputs_of(topo, kinds, here)));
}

namespace {

/// With fabric_credits, a forwarder returns a credit over the link it got
/// the message on, backwards, after that link's latency: the link back must
/// exist and be no slower, or the credit would beat the lookahead the
/// synchronisation relies on (ADR-0001, ADR-0033).
void check_credit_links(const topology_spec& topo, const kind_registry& kinds) {
  auto forwarder = [&](const std::string& id) {
    const node_spec* n = topo.find_node(id);
    return n && kinds.fabric_of(n->kind).role == fabric_role::forwarder;
  };
  for (const auto& l : topo.links) {
    if (!forwarder(l.src) || !forwarder(l.dst))
      continue;
    const link_spec* back = topo.find_link(l.dst, l.src);
    if (!back || back->latency > l.latency)
      throw std::invalid_argument(fmt::format(
        "{}: fabric_credits: the link {} -> {} needs a link back with at most its "
        "latency ({} ps) for the credits",
        topo.file, l.src, l.dst, l.latency.ps()));
  }
}

/// Per port `n`'s kind declares, in order, the node it goes to: the
/// component of that name in the node's own scope.
std::vector<std::string> port_ends(const node_spec& n, const kind_registry& kinds) {
  std::vector<std::string> out;
  const auto ports = kinds.ports_of(n.impl);
  if (ports.empty())
    return out;
  const std::string scope = n.id.substr(0, n.id.rfind('.') + 1);
  for (const port_doc& p : ports)
    out.push_back(scope + std::string(p.to));
  return out;
}

/// Node `n`'s port ends, each checked to have its link: else the build
/// fails naming the node and the port (not the first message sent on it).
std::vector<std::string> checked_port_ends(const topology_spec& topo, const node_spec& n,
                                           const kind_registry& kinds) {
  std::vector<std::string> ends = port_ends(n, kinds);
  for (size_t i = 0; i < ends.size(); ++i)
    if (!topo.find_link(n.id, ends[i]))
      throw std::invalid_argument(fmt::format("{}: {}: port '{}' has no link (to {})", topo.file,
                                              n.id, kinds.ports_of(n.impl)[i].name, ends[i]));
  return ends;
}

} // namespace

void build_machine(const topology_spec& topo, const kind_registry& kinds,
                   const machine_context& given, simulation& sim,
                   const node_filter& here, size_t threads) {
  // A part of a split run (issue 31): another process's node is known by
  // its id and place, and by name at the far end of a kept link (its kind
  // is not made, its parameters not read, its ports checked by the process
  // that builds it).
  const std::vector<node_spec>& nodes = topo.nodes;
  std::vector<char> local(nodes.size(), 1);
  if (here)
    for (size_t i = 0; i < nodes.size(); ++i)
      local[i] = here(nodes[i]) ? 1 : 0;
  // Every local node's ports, then its kind, on `threads` threads: the
  // kinds read their parameters and neighbours, as their factories do on
  // the shards' threads (ADR-0017). A failure is the one the sequential
  // loop would meet first.
  std::vector<std::vector<std::string>> ends(nodes.size());
  for_each_index(nodes.size(), threads, [&](size_t i) {
    if (local[i])
      ends[i] = checked_port_ends(topo, nodes[i], kinds);
  });
  if (topo.fabric_credits)
    check_credit_links(topo, kinds);
  machine_context ctx = given;
  if (!ctx.fabric)
    ctx.fabric = build_fabric(topo, kinds, here);
  std::vector<node_factory> made(nodes.size());
  for_each_index(nodes.size(), threads, [&](size_t i) {
    if (local[i])
      made[i] = kinds.make(nodes[i], ctx);
  });
  if (!here) {
    for (size_t i = 0; i < nodes.size(); ++i)
      sim.add_node(nodes[i].id, std::move(made[i]), nodes[i].place, std::move(ends[i]));
    for (const auto& l : topo.links)
      sim.add_link(l.src, l.dst, l.latency, l.bandwidth, l.queue_depth);
    return;
  }
  // Nodes are sorted by id and links by source, then destination: a
  // source's links come together, numbered in that order at the source.
  // Each source's run is added whole when its source or one of its ends is
  // built here (a credit names its link by that number), and left out when
  // both ends of each are elsewhere. (A search of the sorted ids, not a
  // hash of every name: hashing 200,000 names took longer than the rest.)
  const auto by_id = [](const node_spec& x, const node_spec& y) { return x.id < y.id; };
  const auto by_src = [](const link_spec& x, const link_spec& y) { return x.src < y.src; };
  if (!std::is_sorted(nodes.begin(), nodes.end(), by_id) ||
      !std::is_sorted(topo.links.begin(), topo.links.end(), by_src))
    throw std::logic_error(fmt::format("{}: a part of a split run needs the nodes sorted by id "
                                       "and the links by source, as the loader sorts them",
                                       topo.file));
  auto position = [&](const std::string& id) {
    const auto it = std::lower_bound(nodes.begin(), nodes.end(), id,
                                     [](const node_spec& n, const std::string& x) {
                                       return n.id < x;
                                     });
    return it != nodes.end() && it->id == id ? static_cast<size_t>(it - nodes.begin())
                                             : nodes.size();
  };
  // The kept runs, and the nodes they name: this process's own, and the
  // other processes' nodes at the far end of a kept link (its boundary).
  std::vector<char> named = local;
  std::vector<std::pair<size_t, size_t>> kept; // runs [b, e) of topo.links
  std::vector<size_t> dst(topo.links.size());
  size_t at = 0; // the position of the current run's source
  for (size_t b = 0; b < topo.links.size();) {
    const std::string& src = topo.links[b].src;
    size_t e = b + 1;
    while (e < topo.links.size() && topo.links[e].src == src)
      ++e;
    while (at < nodes.size() && nodes[at].id < src)
      ++at;
    const bool src_here = at < nodes.size() && nodes[at].id == src;
    bool keep = src_here && local[at];
    for (size_t k = b; k < e; ++k) {
      dst[k] = position(topo.links[k].dst);
      keep = keep || (dst[k] < nodes.size() && local[dst[k]]);
    }
    if (keep) {
      kept.emplace_back(b, e);
      if (src_here)
        named[at] = 1;
      for (size_t k = b; k < e; ++k)
        if (dst[k] < nodes.size())
          named[dst[k]] = 1;
    }
    b = e;
  }
  // A node no kept link names is known here by its id and place alone.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const node_spec& n = nodes[i];
    if (local[i])
      sim.add_node(n.id, std::move(made[i]), n.place, std::move(ends[i]));
    else if (named[i])
      sim.add_node(n.id, {}, n.place);
    else
      sim.add_elsewhere(n.place);
  }
  for (const auto& [b, e] : kept)
    for (size_t k = b; k < e; ++k) {
      const link_spec& l = topo.links[k];
      sim.add_link(l.src, l.dst, l.latency, l.bandwidth, l.queue_depth);
    }
}

simulation::grouping_fn partition_grouping(std::string_view how) {
  size_t level = 0;
  if (how == "sip")
    level = 1;
  else if (how == "cube")
    level = 2;
  else if (how == "pe")
    level = 3;
  else
    throw std::invalid_argument(
      fmt::format("partition '{}': expected auto, cube, sip or pe", how));
  // The node's SIP / cube / PE, from its place: sip0.cube1.pe3.pe_gemm ->
  // SIP 0 / its cube 1 / its PE 3. A node above that level (a cube's own
  // nodes, e.g. sip0.cube1.hbm, under "pe") is a group of its own (an empty
  // key). Names hold no '.' within a level, so this is the first `level`
  // dotted segments of the id (group_prefix), without reading names: a
  // split run's other nodes have none (simulation::add_elsewhere).
  return [level](const std::string&, const node_place& p) -> std::string {
    if (!p.sip || (level >= 2 && !p.cube) || (level == 3 && !p.pe))
      return {};
    std::string key = "s" + std::to_string(*p.sip);
    if (level >= 2)
      key += "c" + std::to_string(*p.cube);
    if (level == 3)
      key += "p" + std::to_string(*p.pe);
    return key;
  };
}

void check_partition_name(std::string_view how) {
  if (how != "auto")
    (void)partition_grouping(how);
}

} // namespace kb
