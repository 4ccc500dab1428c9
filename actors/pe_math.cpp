#include "actors/pe_math.hpp"

#include "runtime/machine/pipeline_stats.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

namespace {
constexpr uint16_t done_timer = kind_of(pipe_kind::timer);
constexpr uint8_t last_op = static_cast<uint8_t>(math_op::rsqrt);
uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
} // namespace

const impl_decl<pe_math::config>& pe_math::decl() {
  static const impl_decl<config> d =
    impl_decl<config>{
      "pe_math",
      "SIMD: ceil(E/(lanes*rate))*op_cost + pipeline cycles per stage of E elements",
      {param(&config::lanes, "lanes", "elements per cycle (L)")
         .init(64u)
         .at_least(1u, "PE_MATH needs at least 1 lane"),
       param(&config::pipeline, "pipeline_cycles", "pipeline latency per stage").init(Cycles{4}),
       param(&config::cheap_op, "cheap_op_cycles", "op cost of add, mul, relu, bias, scale")
         .init(Cycles{1}),
       param(&config::expensive_op, "expensive_op_cycles", "op cost of exp, dequant, rsqrt")
         .init(Cycles{4})}}
      .with(rate_params(&config::rates, "elements"))
      .reports(lane_stats::all);
  return d;
}

pe_math::config pe_math::read_config(const param_reader& p,
                                     const machine_context& ctx) {
  config c = decl().read(p);
  c.clock = ctx.clock;
  return c;
}

pe_math::pe_math(caf::actor_config& cfg, node_init init, config c)
  : unit_node(cfg, std::move(init), {stage_type::math}), cfg_(c) {}

Cycles pe_math::op_cost(const config& c, math_op op) {
  switch (op) {
  case math_op::add:
  case math_op::mul:
  case math_op::relu:
  case math_op::bias:
  case math_op::scale:
    return c.cheap_op;
  case math_op::exp:
  case math_op::dequant:
  case math_op::rsqrt:
    return c.expensive_op;
  }
  throw std::invalid_argument(
    fmt::format("unknown math op {}", static_cast<unsigned>(op)));
}

Cycles pe_math::stage_cycles(const config& c, math_op op, uint64_t elements,
                             dtype in, dtype out) {
  // Saturating like pe_gemm::tile_cycles. At rate num/den the lanes take
  // lanes * num elements per den cycles: ceil(E * den / (lanes * num))
  // groups, exactly ceil(E / lanes) at rate 1.
  const compute_rate rate = c.rates.slower(in, out);
  auto n = checked_mul(elements, rate.den);
  if (n)
    n = ceil_div(*n, uint64_t{c.lanes} * rate.num);
  if (n)
    n = checked_mul(op_cost(c, op).count(), *n);
  if (n)
    n = checked_add(*n, c.pipeline.count());
  return Cycles{n.value_or(UINT64_MAX)};
}

void pe_math::begin_stage(lane_id lane, wire::Stage::Reader s) {
  if (s.getOp() > last_op) {
    auto t = token(lane);
    throw std::runtime_error(fmt::format(
      "{}: MATH stage of tile {} (command {}) has {} op",
      node_name(), t.getTile(), t.getCommand(),
      s.getOp() == 255 ? std::string("no")
                       : fmt::format("an unknown ({})", s.getOp())));
  }
  const Cycles n =
    stage_cycles(cfg_, static_cast<math_op>(s.getOp()), s.getElements(),
                 static_cast<dtype>(s.getInDtype()), static_cast<dtype>(s.getOutDtype()));
  schedule(now() + cfg_.clock.to_time(n), done_timer, lane);
}

void pe_math::on_message(sim_event& ev) {
  if (ev.kind != done_timer)
    throw std::runtime_error(
      fmt::format("{}: unexpected message kind {}", node_name(), ev.kind));
  end_stage(static_cast<lane_id>(ev.arg0));
}

service_time_fn pe_math::service_time(const config& c, const machine_context&) {
  return [c](const service_request& r) {
    const auto& p = r.s->params;
    const SimTime end =
      r.in.head + c.clock.to_time(stage_cycles(c, p.op.value_or(math_op::add), p.elements,
                                               p.in_dtype, p.out_dtype));
    return crossing{end, end};
  };
}

} // namespace kb
