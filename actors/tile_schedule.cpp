#include "actors/tile_schedule.hpp"

#include "runtime/schedule/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

namespace {

int64_t cycles_of(SimTime t, const sim_clock& c) {
  return static_cast<int64_t>(std::min<uint64_t>(c.to_cycles_ceil(t).count(), INT64_MAX));
}

std::string op_name(uint32_t k, const stage& s) {
  std::string name = fmt::format("k{}.{}", k, to_string(s.type));
  if (s.params.operand && s.type == stage_type::dma_read)
    name += fmt::format(".{}", s.params.operand);
  if (s.params.op)
    name += fmt::format(".{}", to_string(*s.params.op));
  return name;
}

/// a + b, held at INT64_MAX instead of wrapping.
int64_t add_capped(int64_t a, int64_t b) {
  int64_t s = 0;
  return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}

void check_body_limits(std::size_t ops, int64_t cycles) {
  if (ops > max_body_ops || cycles > max_body_cycles)
    throw std::domain_error(fmt::format(
      "the steady-state body ({} ops, {} cycles of service) exceeds the prediction's limit "
      "({} ops, {} cycles)",
      ops, cycles, max_body_ops, max_body_cycles));
}

} // namespace

uint32_t body_tile_count(const pipeline_plan& plan) {
  uint32_t n = 0;
  for (const auto& tile : plan.tiles) {
    if (tile.m != plan.tiles.front().m || tile.n != plan.tiles.front().n)
      break; // M→N→K order: one output tile's K tiles come first, together
    ++n;
  }
  return n;
}

sched::problem body_problem(const pipeline_plan& plan, const stage_timing& timing) {
  if (plan.tiles.empty())
    throw std::invalid_argument("the plan has no tiles");
  sched::problem p;
  p.source = "steady-state body";
  for (int t = 0; t <= static_cast<int>(stage_type::dma_write); ++t)
    p.pools.push_back({std::string(to_string(static_cast<stage_type>(t))), 1});
  const int64_t wire = cycles_of(timing.wire(), timing.clock());
  const uint32_t body = body_tile_count(plan);
  // Check the limits before building anything: each op's reservation table
  // holds one row per cycle, so a huge latency (a tiny bandwidth) or a huge
  // body (tiny tiles) would otherwise take memory without bound.
  std::size_t ops = 0;
  int64_t cycles = 0;
  for (uint32_t k = 0; k < body; ++k)
    for (const stage& s : plan.tiles[k].stages) {
      ++ops;
      cycles = add_capped(cycles, cycles_of(timing.service(s), timing.clock()));
    }
  check_body_limits(ops, cycles);
  for (uint32_t k = 0; k < body; ++k) {
    const tile_plan& tile = plan.tiles[k];
    for (std::size_t i = 0; i < tile.stages.size(); ++i) {
      const stage& s = tile.stages[i];
      sched::op_spec op;
      op.name = op_name(k, s);
      op.latency = cycles_of(timing.service(s), timing.clock());
      const auto lane = static_cast<uint32_t>(s.type);
      op.reservation.assign(static_cast<std::size_t>(std::max<int64_t>(op.latency, 1)),
                            {sched::pool_use{lane, 1}});
      p.ops.push_back(std::move(op));
      if (i > 0) {
        sched::edge_spec e;
        e.from = static_cast<uint32_t>(p.ops.size() - 2);
        e.to = static_cast<uint32_t>(p.ops.size() - 1);
        e.latency = p.ops[e.from].latency + (tile.stages[i - 1].type == s.type ? 0 : wire);
        p.edges.push_back(e);
      }
    }
  }
  // A body of fewer ops than the selector's threshold is still modulo
  // scheduled: the caller asks for the cost-based path explicitly.
  return p;
}

tile_schedule schedule_body(const pipeline_plan& plan, const stage_timing& timing) {
  return schedule_body(body_problem(plan, timing), body_tile_count(plan), timing.clock());
}

tile_schedule schedule_body(sched::problem body, uint32_t body_tiles, const sim_clock& clock) {
  tile_schedule out;
  out.problem = std::move(body);
  int64_t cycles = 0;
  for (const auto& op : out.problem.ops)
    cycles = add_capped(cycles, op.latency);
  check_body_limits(out.problem.ops.size(), cycles);
  out.body_tiles = body_tiles;
  sched::schedule_options o;
  o.requested = sched::strategy::cost;
  out.analysis = sched::generate_schedule(out.problem, o);
  if (!out.analysis.success)
    throw std::runtime_error(fmt::format(
      "the steady-state body could not be scheduled: {}",
      out.analysis.diagnostics.empty() ? "" : out.analysis.diagnostics.back().message));
  out.ii = SimTime{*out.analysis.ii * clock.period_ps()};
  return out;
}

} // namespace kb
