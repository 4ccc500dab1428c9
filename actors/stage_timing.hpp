#pragma once
// The unloaded service time of each stage kind on one PE, straight from the
// timing model (DESIGN.md §4) and the configured parameters of the units, the
// cube's XBAR and HBM and the links between them: what a stage takes when
// nothing else is in flight. The modulo schedule of a command's steady-state
// body (tile_schedule) is built from these.

#include "actors/pe_gemm.hpp"
#include "actors/pe_math.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/sim_time.hpp"

#include <optional>
#include <string>

namespace kb {

class stage_timing {
public:
  /// Reads the configs of PE `pe_prefix` ("sip0.cube0.pe0") and its cube.
  /// Throws std::invalid_argument naming a missing node or link.
  stage_timing(const topology_spec& topo, const std::string& pe_prefix);

  /// Service span of `s` on its unit (rule 9: take to tail / ack / reply /
  /// timer). Throws std::domain_error for DMA to anything but this cube's
  /// HBM, which the unloaded model does not cover.
  SimTime service(const stage& s) const;
  /// Latency of the wire between two units of the PE.
  SimTime wire() const { return wire_; }
  const sim_clock& clock() const { return clock_; }

private:
  SimTime dma(uint64_t bytes, bool write) const;

  sim_clock clock_;
  SimTime wire_;
  std::string cube_;
  // units
  pe_gemm::config gemm_;
  pe_math::config math_;
  SimTime dma_setup_;
  Bandwidth tcm_bw_ = Bandwidth::gbps(512);
  SimTime fs_to_tcm_, tcm_to_fs_;
  // fabric: pe_dma -> xbar -> hbm and back
  struct hop {
    SimTime latency;
    std::optional<Bandwidth> bw;
  };
  hop dma_xbar_, xbar_hbm_, hbm_xbar_, xbar_dma_;
  SimTime xbar_latency_;
  Bandwidth hbm_bw_ = Bandwidth::gbps(512);
  SimTime hbm_latency_;
};

} // namespace kb
