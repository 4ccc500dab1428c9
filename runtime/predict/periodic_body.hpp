#pragma once
// The II of a deep body without one op per tile (ADR-0022). A body of K
// tiles whose leading R tiles share one shape (the K tiles of a deep GEMM:
// the same stages and services, only the addresses differ) is a timed event
// graph of period one tile: its II is its cycle time, the largest
// Σ latency / Σ distance over its dependence cycles, and that comes from a
// sample of the body — its first w tiles, its last w tiles of the shape and
// its tail — with the R − 2w tiles between stood for by the (max,+) power
// of one tile's transfer matrix. The cost grows with log K, not K.
//
// Exact, not an estimate: in a body problem every op holds only its own
// lane (capacity 1), for exactly its latency, and each lane's ops are
// chained in FIFO order by edges of that latency, the last of a body before
// the first of the next. Any start times that meet the edges therefore use
// each lane at most once per cycle modulo II, and the edges can be met at
// every II ≥ RecMII (longest-path potentials), so the body's II is MII.

#include "runtime/plan/tile_source.hpp"
#include "runtime/predict/service_model.hpp"
#include "runtime/schedule/mii.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <optional>

namespace kb {

struct periodic_sample {
  /// The body problem of the sample's tiles (tile_schedule.hpp's rules).
  sched::problem problem;
  uint32_t body_tiles = 0; ///< the whole body's tiles
  uint64_t body_ops = 0;   ///< and its ops
  uint64_t inserted = 0;   ///< tiles of the shape left out at the cut (R − 2w)
  uint32_t tile_ops = 0;   ///< ops per tile of the shape
  uint32_t cut_op = 0;     ///< the first op after the cut (the sample's tile w)
  /// Ops before the cut that edges across it leave from: the last `span`
  /// tiles of the shape before it.
  uint32_t frontier_ops = 0;
};

/// Tiles of the shape on each side of the cut in a sample.
uint32_t periodic_sample_side(const service_model& timing);

/// The sample of the first `body_tiles` tiles of `tiles` (one output tile),
/// or nullopt when the body is not periodic enough to gain from it or breaks
/// an assumption above (an op of latency 0, an edge back in op order, an edge
/// over more tiles than a side): it is then scheduled op by op. Plans every
/// tile once to compare shapes; builds only the sample's ops.
std::optional<periodic_sample> sample_periodic_body(const tile_source& tiles,
                                                    uint32_t body_tiles,
                                                    const service_model& timing);

/// ResMII, RecMII and MII of the whole body the sample stands for; its II is
/// the MII. Throws std::domain_error when the cycle time does not fit in
/// 32-bit cycles.
sched::mii_bounds periodic_cycle_time(const periodic_sample& sample);

} // namespace kb
