#include "runtime/pipeline/command.hpp"

#include "runtime/address.hpp"
#include "runtime/pipeline/token.hpp"
#include "runtime/data/oplog_stream.hpp"
#include "runtime/plan/plan_error.hpp"

#include <fmt/format.h>

namespace kb {

namespace {

uint8_t opt_dtype(const std::optional<dtype>& d, dtype fallback) {
  return static_cast<uint8_t>(d.value_or(fallback));
}

} // namespace

std::string memory_of(uint64_t address) {
  const global_address a = global_address::decode(address);
  const char* space = a.space == mem_space::hbm ? "hbm" : a.space == mem_space::sram ? "sram" : "tcm";
  if (a.space == mem_space::tcm)
    return fmt::format("tcm of {}.pe{}", a.cube_prefix(), a.pe);
  return fmt::format("{} of {}", space, a.cube_prefix());
}

std::string describe(const pe_command& c) {
  if (auto* g = std::get_if<gemm_plan_args>(&c))
    return fmt::format("gemm {}x{}x{} {} tiles {}x{}x{}", g->m, g->k, g->n,
                       to_string(g->in_dtype), g->tile_m, g->tile_k, g->tile_n);
  if (auto* m = std::get_if<math_plan_args>(&c))
    return fmt::format("math {} {}x{} {} tiles {}x{}", to_string(m->op), m->m,
                       m->n, to_string(m->in_dtype), m->tile_m, m->tile_n);
  const auto& sc = std::get<simple_command>(c);
  const stage_params& p = sc.s.params;
  switch (sc.s.type) {
    case stage_type::dma_read:
    case stage_type::dma_write:
      return fmt::format("{} {}x{} {} ({} B) {} {}",
                         sc.op && is_atomic(sc.op->fn) && sc.op->kind == op_kind::math
                           ? std::string_view(sc.op->op_name) // docs/adr/0027
                           : to_string(facts_of(c).call),
                         p.tm, p.tn,
                         to_string(p.in_dtype), p.bytes,
                         sc.s.type == stage_type::dma_read ? "from" : "to", memory_of(p.address));
    case stage_type::gemm: {
      std::string how;
      if (sc.op && sc.op->transpose_a)
        how += "a^T";
      if (sc.op && sc.op->transpose_b)
        how += how.empty() ? "b^T" : ", b^T";
      if (sc.op && sc.op->accumulate)
        how += how.empty() ? "into acc" : ", into acc";
      return fmt::format("dot {}x{}x{} {}{}", p.tm, p.tk, p.tn, to_string(p.in_dtype),
                         how.empty() ? "" : " (" + how + ")");
    }
    default:
      return fmt::format("{} {}x{} {}", sc.op ? sc.op->op_name : std::string(to_string(sc.s.type)),
                         p.tm, p.tn, to_string(p.out_dtype));
  }
}

command_facts facts_of(const pe_command& c) {
  command_facts f;
  if (auto* g = std::get_if<gemm_plan_args>(&c)) {
    f.call = command_call::gemm;
    f.flops = 2ull * g->m * g->n * g->k;
    return f;
  }
  if (auto* m = std::get_if<math_plan_args>(&c)) {
    f.call = command_call::math;
    f.flops = uint64_t{m->m} * m->n;
    return f;
  }
  const auto& sc = std::get<simple_command>(c);
  const stage_params& p = sc.s.params;
  f.unit = static_cast<uint8_t>(sc.s.type);
  switch (sc.s.type) {
    case stage_type::dma_read:
      f.call = command_call::load;
      f.bytes = p.bytes;
      break;
    case stage_type::dma_write:
      f.call = command_call::store;
      f.bytes = p.bytes;
      break;
    case stage_type::gemm:
      f.call = command_call::dot;
      f.flops = 2ull * p.tm * p.tk * p.tn;
      break;
    default:
      f.call = command_call::compute;
      f.flops = sc.op ? flops(*sc.op) : uint64_t{p.tm} * p.tn;
  }
  return f;
}

message_body encode_command(const pe_command& c, uint64_t id, std::span<const uint8_t> payload,
                            std::string_view who, std::span<const uint64_t> deps) {
  auto msg = std::make_unique<capnp::MallocMessageBuilder>(128);
  auto cmd = msg->initRoot<wire::PeCommand>();
  cmd.setId(id);
  if (!payload.empty())
    cmd.setPayload(capnp::Data::Reader(payload.data(), payload.size()));
  if (!who.empty())
    cmd.setWho(capnp::Text::Reader(who.data(), who.size()));
  if (!deps.empty()) {
    auto d = cmd.initDeps(static_cast<unsigned>(deps.size()));
    for (unsigned i = 0; i < deps.size(); ++i)
      d.set(i, deps[i]);
  }
  if (auto* g = std::get_if<gemm_plan_args>(&c)) {
    auto w = cmd.initGemm();
    w.setM(g->m);
    w.setK(g->k);
    w.setN(g->n);
    w.setTileM(g->tile_m);
    w.setTileK(g->tile_k);
    w.setTileN(g->tile_n);
    w.setInDtype(static_cast<uint8_t>(g->in_dtype));
    w.setOutDtype(opt_dtype(g->out_dtype, g->in_dtype));
    w.setAAddr(g->a_addr);
    w.setBAddr(g->b_addr);
    w.setCAddr(g->c_addr);
    w.setAPinned(g->a_pinned);
    w.setBPinned(g->b_pinned);
    auto ep = w.initEpilogue(static_cast<unsigned>(g->epilogue.size()));
    for (unsigned i = 0; i < g->epilogue.size(); ++i) {
      ep[i].setOp(static_cast<uint8_t>(g->epilogue[i].op));
      ep[i].setScope(g->epilogue[i].scope
                       ? static_cast<uint8_t>(*g->epilogue[i].scope) + 1
                       : 0);
      if (g->epilogue[i].operand)
        to_wire(*g->epilogue[i].operand, ep[i].initOperand());
      ep[i].setValue(g->epilogue[i].value);
    }
  } else if (auto* m = std::get_if<math_plan_args>(&c)) {
    auto w = cmd.initMath();
    w.setM(m->m);
    w.setN(m->n);
    w.setTileM(m->tile_m);
    w.setTileN(m->tile_n);
    w.setOp(static_cast<uint8_t>(m->op));
    w.setInDtype(static_cast<uint8_t>(m->in_dtype));
    w.setOutDtype(opt_dtype(m->out_dtype, m->in_dtype));
    w.setSrcAddr(m->src_addr);
    w.setDstAddr(m->dst_addr);
  } else {
    const auto& sc = std::get<simple_command>(c);
    auto st = cmd.initSimple().initStage();
    to_wire(sc.s, st);
    if (sc.op)
      to_wire(*sc.op, st.initDataOp());
  }
  return message_body{std::move(msg)};
}

std::unique_ptr<tile_source> command_tiles(wire::PeCommand::Reader cmd) {
  switch (cmd.which()) {
    case wire::PeCommand::GEMM: {
      auto w = cmd.getGemm();
      gemm_plan_args a;
      a.m = w.getM();
      a.k = w.getK();
      a.n = w.getN();
      a.tile_m = w.getTileM();
      a.tile_k = w.getTileK();
      a.tile_n = w.getTileN();
      a.in_dtype = static_cast<dtype>(w.getInDtype());
      a.out_dtype = static_cast<dtype>(w.getOutDtype());
      a.a_addr = w.getAAddr();
      a.b_addr = w.getBAddr();
      a.c_addr = w.getCAddr();
      a.a_pinned = w.getAPinned();
      a.b_pinned = w.getBPinned();
      for (auto e : w.getEpilogue()) {
        epilogue_op op;
        op.op = static_cast<math_op>(e.getOp());
        if (e.getScope() != 0)
          op.scope = static_cast<epilogue_scope>(e.getScope() - 1);
        if (e.hasOperand())
          op.operand = from_wire(e.getOperand());
        op.value = e.getValue();
        a.epilogue.push_back(op);
      }
      return gemm_tiles(a);
    }
    case wire::PeCommand::MATH: {
      auto w = cmd.getMath();
      math_plan_args a;
      a.m = w.getM();
      a.n = w.getN();
      a.tile_m = w.getTileM();
      a.tile_n = w.getTileN();
      a.op = static_cast<math_op>(w.getOp());
      a.in_dtype = static_cast<dtype>(w.getInDtype());
      a.out_dtype = static_cast<dtype>(w.getOutDtype());
      a.src_addr = w.getSrcAddr();
      a.dst_addr = w.getDstAddr();
      return math_tiles(a);
    }
    case wire::PeCommand::SIMPLE: {
      pipeline_plan p;
      tile_plan t;
      t.tile_id = 0;
      t.stages.push_back(from_wire(cmd.getSimple().getStage()));
      p.tiles.push_back(std::move(t));
      return std::make_unique<plan_tiles>(std::move(p));
    }
  }
  throw plan_error(fmt::format("command {}: unknown command type", cmd.getId()));
}

pipeline_plan plan_command(wire::PeCommand::Reader cmd) {
  return materialize(*command_tiles(cmd));
}

} // namespace kb
