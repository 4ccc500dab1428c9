#include "runtime/predict/tile_schedule.hpp"

#include "runtime/predict/periodic_body.hpp"
#include "runtime/schedule/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace kb {

namespace {

int64_t cycles_of(SimTime t, const sim_clock& c) {
  return static_cast<int64_t>(c.to_cycles_ceil(t).count());
}

std::string op_name(uint32_t k, const stage& s) {
  std::string name = fmt::format("k{}.{}", k, to_string(s.type));
  if (s.params.operand && s.type == stage_type::dma_read)
    name += fmt::format(".{}", s.params.operand);
  if (s.params.op)
    name += fmt::format(".{}", to_string(*s.params.op));
  return name;
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

namespace {

/// The body problem of the leading tiles `tile(0)`, `tile(1)`, … (at most
/// `limit`) that share tile 0's output tile. Tiles are asked for one at a
/// time: a body of 1,024 tiles need not be planned all at once.
template <class TileAt>
sched::problem build_body(uint32_t limit, TileAt&& tile_at, const service_model& timing) {
  sched::problem p;
  p.source = "steady-state body";
  for (int t = 0; t <= static_cast<int>(stage_type::dma_write); ++t)
    p.pools.push_back({std::string(to_string(static_cast<stage_type>(t))), 1});
  const int64_t wire = cycles_of(timing.wire(), timing.clock());
  auto add_edge = [&](uint32_t from, uint32_t to, int64_t latency, uint32_t distance) {
    sched::edge_spec e;
    e.from = from;
    e.to = to;
    e.latency = latency;
    e.distance = distance;
    p.edges.push_back(e);
  };
  // A visit: consecutive stages of one tile on one unit lane, served as one
  // take of the token (DMA_READ A then B).
  struct visit {
    uint32_t lane, first, last;
  };
  std::vector<visit> visits;
  std::vector<std::vector<uint32_t>> by_lane(p.pools.size()); // visits in FIFO order
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint32_t, uint32_t>>> hand_offs;
  uint32_t first_m = 0, first_n = 0;
  for (uint32_t k = 0; k < limit; ++k) {
    const tile_plan& tile = tile_at(k);
    if (k == 0) {
      first_m = tile.m;
      first_n = tile.n;
      // About two edges per op (token flow and FIFO order, credits on
      // hand-offs): room for them once, not regrown across the body.
      p.ops.reserve(std::size_t{limit} * tile.stages.size() + 8);
      p.edges.reserve(2 * p.ops.capacity() + 8);
    } else if (tile.m != first_m || tile.n != first_n) {
      break; // as body_tile_count: the next output tile's tiles begin here
    }
    for (std::size_t i = 0; i < tile.stages.size(); ++i) {
      const stage& s = tile.stages[i];
      sched::op_spec op;
      op.name = op_name(k, s);
      op.latency = cycles_of(timing.service(s), timing.clock());
      if (static_cast<uint64_t>(op.latency) > sched::max_schedule_cycles)
        throw std::domain_error(fmt::format(
          "one {} stage takes {} cycles, over the schedule's limit of {} cycles (2^31 - 1); "
          "its II is not predicted",
          to_string(s.type), op.latency, sched::max_schedule_cycles));
      const auto lane = static_cast<uint32_t>(s.type);
      // The lane is held for the whole service: one hold, not a row per cycle.
      op.holds = {{lane, 1, static_cast<uint32_t>(std::max<int64_t>(op.latency, 1))}};
      p.ops.push_back(std::move(op));
      const auto v = static_cast<uint32_t>(p.ops.size() - 1);
      const bool same_lane = i > 0 && tile.stages[i - 1].type == s.type;
      if (i > 0) // the token moves on: over the wire unless the lane keeps it
        add_edge(v - 1, v, p.ops[v - 1].latency + (same_lane ? 0 : wire), 0);
      if (same_lane) {
        visits.back().last = v;
        continue;
      }
      if (i > 0)
        hand_offs[{visits.back().lane, lane}].push_back(
          {static_cast<uint32_t>(visits.size() - 1), static_cast<uint32_t>(visits.size())});
      by_lane[lane].push_back(static_cast<uint32_t>(visits.size()));
      visits.push_back({lane, v, v});
    }
  }
  // Each unit serves its tokens in FIFO order, one at a time: a visit starts
  // after the unit's previous one ends, the first of the next body after the
  // last of this one (for PE_GEMM this is also the K→K accumulator chain).
  std::vector<uint32_t> position(visits.size());
  for (const auto& lane : by_lane)
    for (std::size_t i = 0; i < lane.size(); ++i) {
      position[lane[i]] = static_cast<uint32_t>(i);
      const visit& from = visits[lane[i]];
      const visit& to = visits[lane[(i + 1) % lane.size()]];
      add_edge(from.last, to.first, p.ops[from.last].latency, i + 1 == lane.size() ? 1 : 0);
    }
  // Credits (queue depth D): a unit that served token n holds it until the
  // receiving unit has taken token n − D of the same hand-off, and a credit
  // takes one wire back; only then does it take its next token.
  const uint32_t depth = std::max<uint32_t>(1, timing.queue_depth());
  for (const auto& [lanes, list] : hand_offs) {
    const auto count = static_cast<int64_t>(list.size());
    for (int64_t n = 0; n < count; ++n) {
      int64_t back = n - depth;
      uint32_t distance = 0;
      while (back < 0) {
        back += count;
        ++distance;
      }
      const auto& sender_lane = by_lane[lanes.first];
      uint32_t next = position[list[static_cast<std::size_t>(n)].first] + 1;
      if (next == sender_lane.size()) {
        next = 0;
        ++distance;
      }
      add_edge(visits[list[static_cast<std::size_t>(back)].second].first,
               visits[sender_lane[next]].first, wire, distance);
    }
  }
  // A body of fewer ops than the selector's threshold is still modulo
  // scheduled: the caller asks for the cost-based path explicitly.
  return p;
}

} // namespace

sched::problem body_problem(const pipeline_plan& plan, const service_model& timing) {
  if (plan.tiles.empty())
    throw std::invalid_argument("the plan has no tiles");
  return build_body(
    body_tile_count(plan), [&](uint32_t k) -> const tile_plan& { return plan.tiles[k]; },
    timing);
}

sched::problem body_problem(const tile_source& tiles, uint32_t body_tiles,
                            const service_model& timing) {
  if (body_tiles == 0 || tiles.size() == 0)
    throw std::invalid_argument("the plan has no tiles");
  tile_plan current; // one tile at a time, alive until the next is asked for
  return build_body(
    std::min(body_tiles, tiles.size()),
    [&](uint32_t k) -> const tile_plan& { return current = tiles.tile(k); }, timing);
}

tile_schedule schedule_body(const pipeline_plan& plan, const service_model& timing) {
  return schedule_body(body_problem(plan, timing), body_tile_count(plan), timing.clock());
}

tile_schedule schedule_body(sched::problem body, uint32_t body_tiles, const sim_clock& clock) {
  tile_schedule out;
  out.body_tiles = body_tiles;
  out.body_ops = body.ops.size();
  if (const uint64_t n = sched::serial_length(body); n > sched::max_schedule_cycles)
    throw std::domain_error(fmt::format(
      "the body of {} tiles takes {} cycles op after op, over the schedule's limit of {} "
      "cycles (2^31 - 1); its II is not predicted",
      body_tiles, n, sched::max_schedule_cycles));
  auto& s = out.scheduled.emplace();
  s.problem = std::move(body);
  sched::schedule_options o;
  o.requested = sched::strategy::cost;
  s.analysis = sched::generate_schedule(s.problem, o);
  if (!s.analysis.success)
    throw std::runtime_error(fmt::format(
      "the steady-state body could not be scheduled: {}",
      s.analysis.diagnostics.empty() ? "" : s.analysis.diagnostics.back().message));
  out.bounds = {s.analysis.res_mii, s.analysis.rec_mii, s.analysis.mii};
  out.ii_cycles = *s.analysis.ii;
  out.ii = SimTime{out.ii_cycles * clock.period_ps()};
  return out;
}

tile_schedule schedule_periodic_body(const periodic_sample& sample, const sim_clock& clock) {
  tile_schedule out;
  out.body_tiles = sample.body_tiles;
  out.body_ops = sample.body_ops;
  out.bounds = periodic_cycle_time(sample);
  out.ii_cycles = *out.bounds.mii;
  out.ii = SimTime{out.ii_cycles * clock.period_ps()};
  return out;
}

} // namespace kb
