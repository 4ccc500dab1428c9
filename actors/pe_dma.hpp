#pragma once

// PE_DMA: the PE's DMA engine (DESIGN §4). Two channels of capacity 1 that
// run concurrently: "read" serves DMA_READ stages, "write" serves DMA_WRITE.
// Every stage first pays `dma_setup_cycles`, then sends its request (through
// the PE_MMU if that is linked into the fabric, ADR-0015) toward the memory
// that owns the address by the fabric routes: the own cube's HBM
// through the XBAR; SRAM, other PEs' TCMs, other cubes and SIPs through the
// NOC (whichever egress the shortest route takes). A read holds its channel
// until the data's tail arrives, a write until its ack arrives.

#include "actors/detail/fabric_port.hpp"
#include "messages/memory.capnp.h"

#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"
#include "runtime/pipeline/unit_node.hpp"

#include <optional>
#include <string>
#include <vector>
#include <span>

namespace kb {

class pe_dma final : public unit_node {
public:
  struct config {
    Cycles setup{8}; ///< paid by every DMA stage before its request leaves
    sim_clock clock{};
    std::shared_ptr<const fabric_map> fabric;
  };
  static constexpr fabric_kind fabric{fabric_role::requester};
  static const impl_decl<config>& decl();
  /// Tokens on to a read's FETCH; tile-done notices.
  static std::span<const port_doc> ports() {
    static constexpr port_doc p[] = {{"fetch", "pe_fetch_store"}, {"done", "pe_scheduler"}};
    return p;
  }
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): the request leaves after the setup.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  pe_dma(caf::actor_config& cfg, node_init init, config c);

protected:
  void begin_stage(lane_id lane, wire::Stage::Reader s) override;
  void on_message(sim_event& ev) override;

private:
  /// Sends the current stage's request of `lane` (its setup is over).
  void send_request(lane_id lane);
  /// The link a request for `address` leaves on: to the PE_MMU if it is
  /// linked into the fabric (ADR-0015), else route_for(address).
  uint32_t egress_for(uint64_t address, lane_id lane);
  /// The egress link toward the memory of `address` by this DMA's own
  /// routes; throws naming the tile for an address no memory owns or no
  /// route reaches.
  uint32_t route_for(uint64_t address, lane_id lane);
  /// The body of a kernel's load (asks for the bytes) or store (carries them).
  message_body data_request(lane_id lane, wire::Stage::Reader s, wire::TileToken::Reader t) const;
  /// Writes a kernel load's bytes into its TCM block (asynchronously).
  void fill_tcm(lane_id lane, wire::MemAccess::Reader reply);
  /// A mem_data / mem_ack arrived for `lane`.
  void on_reply(lane_id lane, sim_event& ev);

  config cfg_;
  detail::fabric_port port_;
  /// Per lane: a request is out and its reply not yet in.
  bool waiting_[2] = {false, false};
  /// TCM fills sent and not yet acknowledged (their addresses).
  std::vector<uint64_t> fills_;
  /// The link to the PE_MMU once a request went through it.
  std::optional<uint32_t> mmu_link_;
};

} // namespace kb
