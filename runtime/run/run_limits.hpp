#pragma once
// The two limits that end a run which would otherwise never end (issue 28):
// `--max-sim-time T` (the run stops at simulated time T; if work is still
// pending there it fails, naming every node that holds work, e.g. each
// kernel that has not returned and what it waits for) and `--stall-timeout
// S` (no event for S seconds of wall-clock time: the process reports every
// kernel still running and exits 1, since a kernel that loops without
// calling tl:: holds its shard's thread and cannot be unwound).

#include "runtime/engine/simulation.hpp"
#include "runtime/sim_time.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace kb {

/// The error of a run stopped at `end` (--max-sim-time) with work still
/// pending, or empty if every node finished its work by then.
std::string passed_end_report(const run_result& r, SimTime end);

/// A stall of `stalled` (at least `limit`) seen by the watchdog of a
/// process of `ranks`: reports it on standard error (`who`: "kernbench
/// run", with the rank of a split run's worker) and ends the process with
/// exit 1 — at once if a kernel of this process runs its own code or the
/// run has one process; else (this process only waits for another) after
/// `split_grace` more, so that the process holding the culprit reports
/// first and this one ends on losing it. Returns false while it waits.
bool end_stalled_run(const std::string& who, std::chrono::milliseconds stalled,
                     std::chrono::milliseconds limit, uint32_t ranks);

/// How much longer a process of a split run waits when none of its own
/// kernels is to blame.
inline constexpr std::chrono::milliseconds split_grace{8000};

} // namespace kb
