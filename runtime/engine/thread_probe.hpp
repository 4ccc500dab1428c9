#pragma once
// Whether this process can start the threads a run asks for, found out
// before anything runs. Where the process limit (`ulimit -u`, a container's
// pids limit) or memory does not allow them, starting the run's threads used
// to abort ("terminate called without an active exception") or leave the
// run stalled at 0 us (issue 35); now it is an error naming the option.

#include <cstddef>
#include <string>

namespace kb {

/// Threads a run starts besides its workers (the clock, the stall watchdog,
/// teardown and CAF's own), started with the probe's so that a limit just
/// above the workers is found too.
inline constexpr size_t run_extra_threads = 4;

/// Starts `workers` + run_extra_threads threads, waits until all run, and
/// ends them. If one cannot be started, the others are ended and
/// std::invalid_argument says "`option`: cannot start N threads here
/// (<reason> after M): ..." (`option` e.g. "--threads 64").
void check_threads_can_start(size_t workers, const std::string& option);

} // namespace kb
