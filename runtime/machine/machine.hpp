#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>
// Turns a loaded topology into a simulation of node actors.

#include "runtime/config/topology_spec.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/machine/kind_registry.hpp"

namespace kb {

/// What the fabric routes of a topology are computed from: its nodes with
/// their kinds' fabric roles, and its links by node id.
struct fabric_inputs {
  std::vector<fabric_node> nodes;
  std::vector<fabric_link> links;
  std::string file;       ///< the topology's, for messages
  std::vector<char> here; ///< a part's nodes (empty: all; fabric_map::build)
};
/// Which nodes a process of a split run builds (empty: every node).
using node_filter = std::function<bool(const node_spec&)>;
fabric_inputs fabric_inputs_of(const topology_spec& topo, const kind_registry& kinds,
                               const node_filter& here = {});
/// The routes; throws std::invalid_argument naming the topology file and a
/// requester/memory pair without a route.
fabric_map build_fabric_map(fabric_inputs in);

/// The fabric routes of `topo` (roles from the kinds), with route tables
/// for the nodes `here` accepts; throws std::invalid_argument naming a
/// requester/memory pair without a route.
std::shared_ptr<const fabric_map> build_fabric(const topology_spec& topo,
                                               const kind_registry& kinds,
                                               const node_filter& here = {});

/// Adds every node and link of `topo` to `sim`; the nodes see the fabric
/// routes (build_fabric) in their context. With `here` (a process of a
/// split run), only the nodes it accepts get their kind made, their ports
/// checked and their route tables; the links between two others are left
/// out (whole runs of one source's links, so that every link keeps its
/// number at its source); another node is added by name and place
/// (simulation::add_node without a factory) when a kept link names it,
/// else by id and place alone (simulation::add_elsewhere).
/// The kinds are made on up to `threads` threads; a failure is the one a
/// single thread would meet first.
void build_machine(const topology_spec& topo, const kind_registry& kinds,
                   const machine_context& ctx, simulation& sim,
                   const node_filter& here = {}, size_t threads = 1);

/// The machine context implied by a topology (clock, wire latency).
machine_context context_of(const topology_spec& topo);

/// How a machine is cut into shards: "cube" (a cube's 1 ns links never
/// cross shards; cuts fall on UCIe and inter-SIP links), "sip" (cuts fall
/// on inter-SIP links only), or "pe" (each PE apart from its cube's shared
/// nodes; for experiments). Returns the group key of a node for
/// simulation::set_grouping; throws std::invalid_argument for an unknown
/// name ("auto" is chosen per machine first: partition_choice.hpp).
simulation::grouping_fn partition_grouping(std::string_view how);
/// Throws std::invalid_argument unless `how` is auto, cube, sip or pe.
void check_partition_name(std::string_view how);

} // namespace kb
