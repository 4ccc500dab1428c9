#pragma once
// PE_MATH: the SIMD unit (DESIGN §4). One lane, "math": a stage on E
// elements takes ceil(E / lanes) * op_cost + pipeline_cycles cycles, with
// op_cost = cheap_op_cycles for add/mul/relu/bias/scale and
// expensive_op_cycles for exp/dequant/rsqrt. At a rate r = num/den of the
// f16 rate (rate_<dtype>, the slower of the stage's in- and out-dtype;
// ADR-0032) the groups are ceil(E * den / (lanes * num)).

#include "actors/compute_rate.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"
#include "runtime/pipeline/unit_node.hpp"
#include "kernels/math_op.hpp"

#include <span>

namespace kb {

class pe_math final : public unit_node {
public:
  struct config {
    uint32_t lanes = 64;           ///< L: elements per cycle and op
    Cycles pipeline{4};            ///< fill/drain latency per stage
    Cycles cheap_op{1};            ///< add, mul, relu, bias, scale
    Cycles expensive_op{4};        ///< exp, dequant, rsqrt
    dtype_rates rates{};           ///< elements per cycle by dtype, relative to f16
    sim_clock clock{};
  };
  static const impl_decl<config>& decl();
  /// Tokens on to the STORE; tile-done notices.
  static std::span<const port_doc> ports() {
    static constexpr port_doc p[] = {{"store", "pe_fetch_store"}, {"done", "pe_scheduler"}};
    return p;
  }
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): a MATH stage ends stage_cycles after it starts.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  pe_math(caf::actor_config& cfg, node_init init, config c);

  /// Cycles per element-group of `op`.
  static Cycles op_cost(const config& c, math_op op);
  /// The timing model of one stage on `elements` elements that reads `in`
  /// and writes `out`.
  static Cycles stage_cycles(const config& c, math_op op, uint64_t elements,
                             dtype in = dtype::f16, dtype out = dtype::f16);

protected:
  void begin_stage(lane_id lane, wire::Stage::Reader s) override;
  void on_message(sim_event& ev) override;

private:
  config cfg_;
};

} // namespace kb
