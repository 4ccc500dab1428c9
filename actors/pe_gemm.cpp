#include "actors/pe_gemm.hpp"

#include "runtime/machine/pipeline_stats.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

namespace {
constexpr uint16_t done_timer = kind_of(pipe_kind::timer);
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
} // namespace

const impl_decl<pe_gemm::config>& pe_gemm::decl() {
  static const impl_decl<config> d =
    impl_decl<config>{
      "pe_gemm",
      "MAC array: ceil(ceil(tm/R)*ceil(tn/C)*tk / rate) + R + C cycles per tile",
      {param(&config::mac_rows, "mac_rows", "MAC array rows (R)")
         .init(32u)
         .at_least(1u, "MAC array dimensions must be >= 1"),
       param(&config::mac_cols, "mac_cols", "MAC array columns (C)")
         .init(32u)
         .at_least(1u, "MAC array dimensions must be >= 1")}}
      .with(rate_params(&config::rates, "MACs"))
      .reports(lane_stats::all);
  return d;
}

pe_gemm::config pe_gemm::read_config(const param_reader& p,
                                     const machine_context& ctx) {
  config c = decl().read(p);
  c.clock = ctx.clock;
  return c;
}

pe_gemm::pe_gemm(caf::actor_config& cfg, node_init init, config c)
  : unit_node(cfg, std::move(init), {stage_type::gemm}), cfg_(c) {}

Cycles pe_gemm::tile_cycles(const config& c, uint32_t tm, uint32_t tk,
                            uint32_t tn, dtype in) {
  // Saturating: a count beyond 64 bits stays the largest, which the clock
  // turns into SimTime::infinity() (the run refuses such tiles up front).
  // The rate scales the array's passes, not its fill and drain (ADR-0032).
  auto n = checked_mul(ceil_div(tm, c.mac_rows), ceil_div(tn, c.mac_cols));
  if (n)
    n = checked_mul(*n, tk);
  if (n)
    n = scaled_ceil(*n, c.rates.of(in));
  if (n)
    n = checked_add(*n, uint64_t{c.mac_rows} + c.mac_cols);
  return Cycles{n.value_or(UINT64_MAX)};
}

void pe_gemm::begin_stage(lane_id lane, wire::Stage::Reader s) {
  const Cycles n = tile_cycles(cfg_, s.getTm(), s.getTk(), s.getTn(),
                               static_cast<dtype>(s.getInDtype()));
  schedule(now() + cfg_.clock.to_time(n), done_timer, lane);
}

void pe_gemm::on_message(sim_event& ev) {
  if (ev.kind != done_timer)
    throw std::runtime_error(
      fmt::format("{}: unexpected message kind {}", node_name(), ev.kind));
  end_stage(static_cast<lane_id>(ev.arg0));
}

service_time_fn pe_gemm::service_time(const config& c, const machine_context&) {
  return [c](const service_request& r) {
    const auto& p = r.s->params;
    const SimTime end =
      r.in.head + c.clock.to_time(tile_cycles(c, p.tm, p.tk, p.tn, p.in_dtype));
    return crossing{end, end};
  };
}

} // namespace kb
