#pragma once

#include "actors/detail/names.hpp"
// PE_DMA: the PE's DMA engine (DESIGN §4). Two channels of capacity 1 that
// run concurrently: "read" serves DMA_READ stages, "write" serves DMA_WRITE.
// Every stage first pays `dma_setup_cycles`, then sends its request over the
// egress link: HBM addresses of the PE's own cube go to `<cube>.xbar`, SRAM
// addresses of its own cube to `<cube>.noc`; other cubes (UCIe) and TCMs are
// not modelled yet. A read holds its channel until the data's tail arrives,
// a write until its ack arrives.

#include "runtime/config/kind_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"
#include "runtime/pipeline/unit_node.hpp"

#include <optional>
#include <string>

namespace kb {

class pe_dma final : public unit_node {
public:
  struct config {
    Cycles setup{8}; ///< paid by every DMA stage before its request leaves
    sim_clock clock{};
  };
  static kind_doc doc();
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
  /// The egress link for `address`; throws for paths not modelled yet.
  uint32_t egress_for(uint64_t address, lane_id lane);
  /// A mem_data / mem_ack arrived for `lane`.
  void on_reply(lane_id lane, sim_event& ev);

  config cfg_;
  std::string cube_;
  detail::cube_id cube_id_;
  std::optional<uint32_t> xbar_link_;
  std::optional<uint32_t> noc_link_;
  /// Per lane: a request is out and its reply not yet in.
  bool waiting_[2] = {false, false};
};

} // namespace kb
