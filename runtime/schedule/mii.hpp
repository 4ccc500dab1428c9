#pragma once
// The generator's lower bound on II: MII = max(ResMII, RecMII).

#include "runtime/schedule/analysis.hpp"
#include "runtime/schedule/dep_graph.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <optional>

namespace kb::sched {

struct mii_bounds {
  uint32_t res_mii = 1;
  std::optional<uint32_t> rec_mii; ///< nullopt: a zero-distance cycle
  std::optional<uint32_t> mii;
};

/// ⌈total use / capacity⌉ over the pools, at least 1.
uint32_t compute_res_mii(const problem& p);

/// ResMII = max over pools of ⌈total use / capacity⌉ (at least 1). RecMII is
/// the smallest II at which no dependence cycle has positive weight
/// Σ(latency − distance·II), found per recurrence (strongly connected
/// component) with a Bellman–Ford positive-cycle test whose rounds walk the
/// ops in topological order of the distance-0 edges (O(E) per round, a few
/// rounds per probe, never a k×k closure). A probe that finds a positive
/// cycle jumps II to that cycle's ratio ⌈Σ latency / Σ distance⌉ (Lawler's
/// search), so a recurrence takes a few probes, not a bisection's ~log Σ.
mii_bounds compute_mii(const problem& p, const dep_graph& g);

/// A fresh analysis for `used`: the problem's edges, one seat per op, and
/// the MII bounds. Both generators start from it; the serial one, which has
/// no II, gets ResMII only (RecMII and MII stay unset).
schedule_analysis begin_analysis(const problem& p, const dep_graph& g, strategy used);

/// An II at which a schedule always exists (every op after the previous one
/// has finished, the whole iteration inside one II): `serial_length`.
uint32_t serial_ii_bound(const problem& p);

} // namespace kb::sched
