#pragma once
// An independent check of any schedule_analysis against its problem. It shares
// no code with the generators: it recomputes MII its own way (resource sums and
// a Bellman–Ford search for RecMII) and rebuilds the modulo reservation table.

#include "runtime/schedule/analysis.hpp"
#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb::sched {

struct validation {
  bool ok = false;
  std::vector<std::string> violations; ///< each names the op, edge or slot
  uint32_t res_mii = 0;
  std::optional<uint32_t> rec_mii; ///< nullopt: a zero-distance cycle
  std::optional<uint32_t> mii;
};

/// Independently computed MII = max(ResMII, RecMII) of `p`.
validation independent_mii(const problem& p);

/// Checks a successful analysis:
/// - every op placed exactly once (one seat per op, orders a permutation);
/// - modulo path: t(v) ≥ t(u) + latency − distance·II for every edge; the
///   modulo use of every pool within capacity in every slot; II ≥ the
///   independent MII; stage = (t − t_min) div II, slot = t mod II,
///   depth = t div II; max_depth and same-depth groups honoured; order sorted
///   by (t, program order);
/// - serial path: every stage 0, and the order is the topological order of the
///   distance-0 edges that always takes the earliest ready op in program
///   order.
/// A failed analysis (success = false) is reported as one violation.
validation validate_schedule(const problem& p, const schedule_analysis& a);

} // namespace kb::sched
