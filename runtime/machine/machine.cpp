#include "runtime/machine/machine.hpp"

namespace kb {

machine_context context_of(const topology_spec& topo) {
  machine_context ctx;
  ctx.clock = topo.clock();
  ctx.wire_latency = ctx.clock.to_time(Cycles{topo.pe_wire_latency_cycles});
  ctx.topology = &topo;
  return ctx;
}

void build_machine(const topology_spec& topo, const kind_registry& kinds,
                   const machine_context& ctx, simulation& sim) {
  for (const auto& n : topo.nodes)
    sim.add_node(n.id, kinds.make(n, ctx));
  for (const auto& l : topo.links)
    sim.add_link(l.src, l.dst, l.latency, l.bandwidth, l.queue_depth);
}

} // namespace kb
