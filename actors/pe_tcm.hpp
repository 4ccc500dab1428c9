#pragma once
// PE_TCM: the PE's scratchpad as the fetch/store lanes see it (DESIGN §4).
// Serves tcm_request messages one at a time, FIFO in arrival-key order, no
// credits: s = max(arrival, free); free = s + xfer(bytes, bandwidth); the
// tcm_reply (bytes and lane echoed) leaves at `free` back to the sender.
// The TCM is dual-ported: DMA traffic from other PEs (mem_read / mem_write
// over the NOC, seed ADR-0014 D1 "other memory domains") is served by a second,
// independent FIFO memory server at `dma_bandwidth_gbps` plus
// `dma_latency_ns` (figures dma_busy_ps, dma_read_bytes, ...), and does not
// contend with fetch/store.

#include "actors/detail/memory_server.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

namespace kb {

class pe_tcm final : public detail::memory_server_node {
public:
  struct config {
    Bandwidth bandwidth = Bandwidth::gbps(512);
    Bandwidth dma_bandwidth = Bandwidth::gbps(512);
    SimTime dma_latency = SimTime::zero();
    uint64_t size_kib = 4096;               ///< capacity
    uint64_t scheduler_reserved_kib = 2560; ///< SchedulerReservedTCM (ADR-0031)
    std::shared_ptr<const fabric_map> fabric;
    std::shared_ptr<const memory_image> deploy; ///< the host's initial contents
  };
  static constexpr fabric_kind fabric{fabric_role::memory, mem_space::tcm};
  static const impl_decl<config>& decl();
  /// Its fetch/store port's statistics (its DMA port's: tcm_dma_stats).
  static constexpr stat_decl stat_busy_ps =
    declare_stat("pe_tcm", "busy_ps", stat_unit::ps, "time the fetch/store port was transferring");
  static constexpr stat_decl stat_bytes =
    declare_stat("pe_tcm", "bytes", stat_unit::bytes, "bytes fetched and stored");
  static constexpr stat_decl stat_requests =
    declare_stat("pe_tcm", "requests", stat_unit::count, "fetch and store requests served");
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): an idle TCM replies xfer(bytes) after the request arrives.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  pe_tcm(caf::actor_config& cfg, node_init init, config c);

protected:
  void on_message(sim_event& ev) override;
  void on_finish() override;

private:
  config cfg_;
  node_id back_to_ = no_node; ///< the last TCM request's sender, and the link to it
  uint32_t back_link_ = 0;
  SimTime free_;
  uint64_t busy_ps_ = 0;
  uint64_t bytes_ = 0;
  uint64_t requests_ = 0;
};

} // namespace kb
