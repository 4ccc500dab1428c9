#pragma once
// What node kinds need from the machine and the run besides their own
// parameters: the clock, the PE wire latency, and the driver programs the
// PE_CPUs run.

#include "runtime/node_place.hpp"
#include "runtime/sim_time.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb {

struct pe_program; // runtime/machine/pe_program.hpp
struct host_plan;  // runtime/pipeline/host_plan.hpp
struct topology_spec; // runtime/config/topology_spec.hpp
class fabric_map;     // runtime/machine/fabric_map.hpp
class memory_image;   // runtime/data/memory_image.hpp
class kind_registry;  // runtime/machine/kind_registry.hpp

struct machine_context {
  sim_clock clock{1000};
  SimTime wire_latency = ns(1);
  /// The whole machine, for kinds that model their neighbours (the PE
  /// scheduler's II prediction); null when a node is built on its own.
  const topology_spec* topology = nullptr;
  /// Id of the node being built (set per node by the kind registry).
  std::string node;
  /// Where that node sits (set with `node`, from its node_spec).
  node_place place;
  /// The registry building the node (set per node with `node`), for kinds
  /// that model their neighbours' timing; it outlives the nodes it builds.
  /// Null when a kind is configured outside a registry.
  const kind_registry* kinds = nullptr;
  /// Program per PE prefix ("sip0.cube0.pe0"); PEs without one stay idle.
  /// Shared: the context is copied for every node built.
  using program_map = std::map<std::string, std::shared_ptr<const pe_program>>;
  std::shared_ptr<const program_map> programs;
  /// A host program's launches (null: one kernel, or the built-in driver):
  /// the host node issues them, the M_CPUs and PE_CPUs run them in program
  /// mode (their programs' `launches`).
  std::shared_ptr<const host_plan> launches;
  /// Routes of the memory fabric (set by build_machine before any node is
  /// made); fabric kinds keep the pointer.
  std::shared_ptr<const fabric_map> fabric;
  /// The host's initial contents of every memory (seed ADR-0020 D7); each memory
  /// node keeps the pages it owns. Null: all memories start zeroed.
  std::shared_ptr<const memory_image> deploy;
};

} // namespace kb
