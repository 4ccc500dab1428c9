#pragma once
// PE_FETCH_STORE: moves tiles between the TCM and the register file
// (DESIGN §4). Two lanes, "fetch" (FETCH stages) and "store" (STORE stages),
// which may run at the same time; each stage sends a tcm_request for the
// stage's bytes to `<pe>.pe_tcm` and ends when the tcm_reply arrives.

#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/pipeline/unit_node.hpp"

#include <optional>
#include <span>
#include <string>

namespace kb {

class pe_fetch_store final : public unit_node {
public:
  struct config {};
  static const impl_decl<config>& decl();
  /// Tokens on to GEMM, MATH or DMA_WRITE; TCM requests; tile-done notices.
  static std::span<const port_doc> ports() {
    static constexpr port_doc p[] = {{"gemm", "pe_gemm"}, {"math", "pe_math"},  {"dma", "pe_dma"},
                                     {"tcm", "pe_tcm"},   {"done", "pe_scheduler"}};
    return p;
  }
  static config read_config(const param_reader& p, const machine_context& ctx);

  pe_fetch_store(caf::actor_config& cfg, node_init init, config c);

protected:
  void begin_stage(lane_id lane, wire::Stage::Reader s) override;
  void on_message(sim_event& ev) override;

private:
  static constexpr size_t tcm_port = 3; ///< "tcm" in ports()
  std::optional<uint32_t> tcm_link_;
};

} // namespace kb
