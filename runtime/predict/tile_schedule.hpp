#pragma once
// The modulo schedule of a composite command's steady-state body: the tiles
// of one output tile (all its K tiles) as ops on the PE's unit lanes, each
// holding its lane for its unloaded service time (stage_timing), chained by
// the stage order with the PE wire between units (ADR-0007). Its II is the tile interval
// the units allow; `kernbench run` sets it beside the simulated interval and
// the `modulo` feed policy releases one body per II.

#include "runtime/predict/service_model.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/plan/tile_source.hpp"
#include "runtime/schedule/analysis.hpp"
#include "runtime/schedule/mii.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <optional>

namespace kb {

struct tile_schedule {
  uint32_t body_tiles = 1; ///< tiles per body (the K tiles of one output tile)
  uint64_t body_ops = 0;
  sched::mii_bounds bounds; ///< ResMII, RecMII and MII of the whole body
  uint32_t ii_cycles = 0;
  SimTime ii; ///< per body: ii_cycles at the PE clock
  /// The II is the scheduler's reserved TCM's bound (tcm_bound.hpp), above
  /// what the units allow (`bounds` and the seats are the units').
  bool tcm_bound = false;
  /// The body op by op and its modulo schedule (a seat per op). Absent when
  /// the body was periodic: its II is then its cycle time, the MII, found
  /// from a sample without seating every op (periodic_body.hpp, ADR-0022).
  struct by_op {
    sched::problem problem;
    sched::schedule_analysis analysis;
  };
  std::optional<by_op> scheduled;
};

/// Tiles in the body of `plan`: the leading tiles of its first output tile.
uint32_t body_tile_count(const pipeline_plan& plan);

/// The body's scheduling problem (ADR-0007): one pool per unit lane (capacity
/// 1); one op per stage, whose latency and hold of its lane are its service
/// rounded up to whole cycles; and the edges
/// - token flow: each consecutive stage pair, + the wire unless both run on
///   the same lane;
/// - FIFO service: each unit's visits in tile order, the last of a body
///   before the first of the next (distance 1) — for PE_GEMM this is the
///   K→K accumulator chain;
/// - credits: a unit that hands token n to the next unit takes its next
///   token only a wire after that unit took token n − queue depth.
/// The edges are exact for the simulator's rules when nothing outside the
/// PE contends; times are exact when every service is a whole cycle.
sched::problem body_problem(const pipeline_plan& plan, const service_model& timing);
/// The same for the first `body_tiles` tiles of `tiles` (the body is those
/// of them that share tile 0's output tile), planned one tile at a time.
sched::problem body_problem(const tile_source& tiles, uint32_t body_tiles,
                            const service_model& timing);

/// Builds and modulo-schedules the body of `plan`. Throws std::domain_error
/// when the plan has a stage the unloaded model does not cover or when a
/// stage, or the body op after op, takes more than
/// sched::max_schedule_cycles (no II or schedule length that long is
/// represented), and std::runtime_error when the schedule fails. No size limit: the schedule's
/// cost grows with the ops, not with the cycles (ADR-0007).
tile_schedule schedule_body(const pipeline_plan& plan, const service_model& timing);
/// The same from a body problem already built by `body_problem`.
tile_schedule schedule_body(sched::problem body, uint32_t body_tiles, const sim_clock& clock);
/// The II of a periodic body from its sample (periodic_body.hpp): its MII,
/// with no per-op seats.
struct periodic_sample;
tile_schedule schedule_periodic_body(const periodic_sample& sample, const sim_clock& clock);

} // namespace kb
