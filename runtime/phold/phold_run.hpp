#pragma once
// Runs PHOLD on the engine (actors) or as the sequential yardstick.

#include "runtime/engine/simulation.hpp"
#include "runtime/phold/phold_model.hpp"

#include <string>

namespace kb::phold {

struct outcome {
  uint64_t committed = 0;
  uint64_t digest = 0;
  double seconds = 0;      ///< wall time of the event loop only
  hub_stats hub;           ///< protocol traffic (actor runs)
  uint64_t remote_msgs = 0; ///< messages between LPs
  std::string error;

  double events_per_second() const { return seconds > 0 ? committed / seconds : 0; }
};

/// PHOLD on node actors under the conservative protocol.
outcome run_actors(const params& p, size_t threads,
                   const cluster_options& cluster = {}, uint32_t shards = 0,
                   delivery_mode delivery = delivery_mode::mailbox,
                   bool exact_shards = false);

/// PHOLD as a plain single-threaded priority-queue loop (no actors).
outcome run_sequential(const params& p);

/// The most LPs a run may have. The LP mesh is one link class (O(LPs), not
/// O(LPs^2)), but every LP is an actor and every shard keeps a few words per
/// node of the run.
inline constexpr uint32_t max_lps = uint32_t{1} << 20;

/// Checks parameters; throws std::invalid_argument naming the option. Times
/// (lookahead, mean, end) are bounded by kb::max_time_ps, so every event time
/// t + lookahead + exponential delay (at most 37 means) stays far below 2^64.
void validate(const params& p);

} // namespace kb::phold
