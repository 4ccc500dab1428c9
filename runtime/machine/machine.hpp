#pragma once
// Turns a loaded topology into a simulation of node actors.

#include "runtime/config/topology_spec.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/machine/kind_registry.hpp"

namespace kb {

/// Adds every node and link of `topo` to `sim`.
void build_machine(const topology_spec& topo, const kind_registry& kinds,
                   const machine_context& ctx, simulation& sim);

/// The machine context implied by a topology (clock, wire latency).
machine_context context_of(const topology_spec& topo);

} // namespace kb
