#pragma once
// The modulo schedule of a composite command's steady-state body: the tiles
// of one output tile (all its K tiles) as ops on the PE's unit lanes, each
// holding its lane for its unloaded service time (stage_timing), chained by
// the stage order with the PE wire between units. Its II is the tile interval
// the units allow; `kernbench run` sets it beside the simulated interval and
// the `modulo` feed policy releases one body per II.

#include "actors/stage_timing.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/schedule/analysis.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>

namespace kb {

struct tile_schedule {
  uint32_t body_tiles = 1; ///< tiles per body (the K tiles of one output tile)
  sched::problem problem;
  sched::schedule_analysis analysis;
  SimTime ii; ///< per body: analysis.ii cycles at the PE clock
};

/// Tiles in the body of `plan`: the leading tiles of its first output tile.
uint32_t body_tile_count(const pipeline_plan& plan);

/// The body's scheduling problem: one pool per unit lane (capacity 1), one op
/// per stage (latency and reservation = its service in whole cycles), an edge
/// per consecutive stage pair (+ the wire unless both run on the same lane).
sched::problem body_problem(const pipeline_plan& plan, const stage_timing& timing);

/// Largest body the prediction schedules: its ops and their summed service
/// cycles. The modulo reservation table is cycle-exact, so a body of many
/// long stages (one output tile over a very deep K) would take seconds.
inline constexpr std::size_t max_body_ops = 96;
inline constexpr int64_t max_body_cycles = 100'000;

/// Builds and modulo-schedules the body of `plan`. Throws std::domain_error
/// when the plan has a stage the unloaded model does not cover or the body
/// exceeds the limits above, and std::runtime_error when the schedule fails.
tile_schedule schedule_body(const pipeline_plan& plan, const stage_timing& timing);
/// The same from a body problem already built by `body_problem`.
tile_schedule schedule_body(sched::problem body, uint32_t body_tiles, const sim_clock& clock);

} // namespace kb
