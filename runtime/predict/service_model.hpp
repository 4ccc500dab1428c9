#pragma once
// The unloaded service time of each stage kind on one PE (DESIGN.md §4): what
// a stage takes when nothing else is in flight. It is composed from the
// service-time functions the node kinds declare (ADR-0007) — PE_GEMM,
// PE_MATH, PE_DMA's setup, PE_TCM, and every node on a DMA's route: PE_MMU,
// XBAR, NOC, HBM, SRAM, another PE's TCM — and from the topology's links,
// crossed with the engine's own `out_link::cross`. A DMA stage follows the
// machine's fabric routes (ADR-0012, ADR-0015) to the memory that owns its
// address and back, so operands in another cube or SIP are predicted too.
// It reads no kind's config itself: each kind builds its function from its
// own parameters.

#include "runtime/config/topology_spec.hpp"
#include "runtime/machine/fabric_map.hpp"
#include "runtime/machine/kind_registry.hpp"
#include "runtime/machine/service_time.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/sim_time.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

namespace kb {

class service_model {
public:
  /// The services of PE `pe_prefix` ("sip0.cube0.pe0") on the machine
  /// `topo` whose routes are `fabric` (built here from `topo` if null).
  /// Throws std::invalid_argument naming a missing node or link, and
  /// std::domain_error for a PE unit that declares no service time.
  service_model(const topology_spec& topo, const kind_registry& kinds,
                const std::string& pe_prefix,
                std::shared_ptr<const fabric_map> fabric = nullptr);

  /// Service span of `s` on its unit (rule 9: take to tail / ack / reply /
  /// timer). Throws std::domain_error for a DMA whose route passes a node
  /// that declares no service time (the per-channel HBM), which the
  /// unloaded model does not cover.
  SimTime service(const stage& s) const;
  /// Latency of the wire between two units of the PE.
  SimTime wire() const { return wire_; }
  const sim_clock& clock() const { return clock_; }
  /// Depth of every PE unit's input queue (credits per sender).
  uint32_t queue_depth() const { return queue_depth_; }

private:
  struct hop {
    SimTime latency;
    std::optional<Bandwidth> bw;
  };
  crossing cross(const hop& h, crossing in, uint64_t bytes) const;
  SimTime dma(const stage& s, bool write) const;
  /// Carries `c` from `from` (already served) along the route to `to`,
  /// crossing each link and each inner node's service; `first` is the first
  /// hop (the DMA's MMU) if not the route's own. Returns `c` arriving at `to`.
  crossing walk(node_id from, node_id to, std::optional<node_id> first, crossing c,
                uint64_t bytes, bool write) const;
  const service_time_fn& service_of(node_id n) const;
  hop link(node_id a, node_id b) const;

  const topology_spec* topo_;
  const kind_registry* kinds_;
  std::shared_ptr<const fabric_map> fabric_;
  sim_clock clock_;
  SimTime wire_;
  uint32_t queue_depth_ = 4;
  node_id dma_id_ = no_node;
  service_time_fn gemm_, math_, dma_setup_, tcm_;
  hop fs_tcm_, tcm_fs_; // fetch/store lane <-> TCM
  /// The fabric nodes' services and links met so far (by node id).
  mutable std::map<node_id, service_time_fn> services_;
  mutable std::map<std::pair<node_id, node_id>, hop> links_;
  /// A DMA's trip past its setup, by what it depends on: (memory, bytes,
  /// write, the request's head and tail). A body's K tiles repeat the same
  /// few trips at other addresses; each route is walked once.
  using trip = std::tuple<node_id, uint64_t, bool, SimTime, SimTime>;
  mutable std::map<trip, SimTime> trips_;
};

} // namespace kb
