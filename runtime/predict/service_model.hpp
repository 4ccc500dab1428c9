#pragma once
// The unloaded service time of each stage kind on one PE (DESIGN.md §4): what
// a stage takes when nothing else is in flight. It is composed from the
// service-time functions the node kinds declare (ADR-0007) — PE_GEMM,
// PE_MATH, PE_DMA's setup, PE_TCM, XBAR, HBM — and from the topology's links,
// crossed with the engine's own `out_link::cross`. It reads no kind's config
// itself: each kind builds its function from its own parameters.

#include "runtime/config/topology_spec.hpp"
#include "runtime/machine/kind_registry.hpp"
#include "runtime/machine/service_time.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/sim_time.hpp"

#include <optional>
#include <string>

namespace kb {

class service_model {
public:
  /// The services of PE `pe_prefix` ("sip0.cube0.pe0") and its cube. Throws
  /// std::invalid_argument naming a missing node, link or declaration.
  service_model(const topology_spec& topo, const kind_registry& kinds,
                const std::string& pe_prefix);

  /// Service span of `s` on its unit (rule 9: take to tail / ack / reply /
  /// timer). Throws std::domain_error for DMA to anything but this cube's
  /// HBM, which the unloaded model does not cover.
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

  sim_clock clock_;
  SimTime wire_;
  uint32_t queue_depth_ = 4;
  std::string cube_;
  service_time_fn gemm_, math_, dma_setup_, tcm_, xbar_, hbm_;
  hop fs_tcm_, tcm_fs_;                           // fetch/store lane <-> TCM
  hop dma_xbar_, xbar_hbm_, hbm_xbar_, xbar_dma_; // pe_dma -> xbar -> hbm and back
};

} // namespace kb
