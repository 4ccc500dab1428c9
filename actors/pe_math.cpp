#include "actors/pe_math.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

namespace {
constexpr uint16_t done_timer = kind_of(pipe_kind::timer);
constexpr uint8_t last_op = static_cast<uint8_t>(math_op::rsqrt);
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
} // namespace

kind_doc pe_math::doc() {
  return {"pe_math",
          "SIMD: ceil(E/lanes)*op_cost + pipeline cycles per stage of E "
          "elements",
          {{"lanes", "uint", "64", "elements per cycle (L)"},
           {"pipeline_cycles", "cycles", "4", "pipeline latency per stage"},
           {"cheap_op_cycles", "cycles", "1",
            "op cost of add, mul, relu, bias, scale"},
           {"expensive_op_cycles", "cycles", "4",
            "op cost of exp, dequant, rsqrt"}}};
}

pe_math::config pe_math::read_config(const param_reader& p,
                                     const machine_context& ctx) {
  config c;
  c.lanes = p.required<uint32_t>("lanes");
  if (c.lanes == 0)
    throw config_error(p.where("lanes"), p.key_path("lanes"),
                       "PE_MATH needs at least 1 lane");
  c.pipeline = p.required<Cycles>("pipeline_cycles");
  c.cheap_op = p.required<Cycles>("cheap_op_cycles");
  c.expensive_op = p.required<Cycles>("expensive_op_cycles");
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

Cycles pe_math::stage_cycles(const config& c, math_op op, uint64_t elements) {
  // Saturating like pe_gemm::tile_cycles.
  auto n = checked_mul(op_cost(c, op).count(), ceil_div(elements, c.lanes));
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
    stage_cycles(cfg_, static_cast<math_op>(s.getOp()), s.getElements());
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
      r.in.head + c.clock.to_time(stage_cycles(c, p.op.value_or(math_op::add), p.elements));
    return crossing{end, end};
  };
}

} // namespace kb
