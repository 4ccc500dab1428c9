#pragma once
// PE_GEMM: the MAC array. Computes on register data only (seed ADR-0021 D6).
// A (tm, tk, tn) tile of in-dtype t takes
// ceil(ceil(tm/R) * ceil(tn/C) * tk / rate(t)) + R + C cycles, rate(t) the
// exact fraction rate_<t> of the f16 rate (ADR-0032; 1 by default).

#include "actors/compute_rate.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"
#include "runtime/pipeline/unit_node.hpp"

#include <span>

namespace kb {

class pe_gemm final : public unit_node {
public:
  struct config {
    uint32_t mac_rows = 32; ///< R
    uint32_t mac_cols = 32; ///< C
    dtype_rates rates{};    ///< MACs per cycle by in-dtype, relative to f16
    sim_clock clock{};
  };
  static const impl_decl<config>& decl();
  /// Tokens on to an epilogue's MATH or the STORE; tile-done notices.
  static std::span<const port_doc> ports() {
    static constexpr port_doc p[] = {{"math", "pe_math"}, {"store", "pe_fetch_store"}, {"done", "pe_scheduler"}};
    return p;
  }
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): a GEMM stage ends tile_cycles after it starts.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  pe_gemm(caf::actor_config& cfg, node_init init, config c);

  /// The timing model of one tile whose operands are of type `in`.
  static Cycles tile_cycles(const config& c, uint32_t tm, uint32_t tk, uint32_t tn,
                            dtype in = dtype::f16);

protected:
  void begin_stage(lane_id lane, wire::Stage::Reader s) override;
  void on_message(sim_event& ev) override;

private:
  config cfg_;
};

} // namespace kb
