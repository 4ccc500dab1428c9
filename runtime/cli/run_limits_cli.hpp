#pragma once
// `--max-sim-time T` and `--stall-timeout S` of `kernbench run` (driver and
// kernel runs alike; runtime/run/run_limits.hpp says what they do).

#include "runtime/cli/run_cli.hpp"
#include "runtime/run/machine_run.hpp"

#include <string>

namespace kb {

/// A simulated duration with its unit: "1ms", "250 us", "4000ns", "12ps"
/// (integer or decimal, at most 2^48 ps); std::invalid_argument naming
/// `option` otherwise. `allow_zero`: 0 (with its unit) is a time too.
SimTime parse_sim_duration(const std::string& text, const std::string& option,
                           bool allow_zero = false);

/// A kernel run's --max-sim-time unless given (ADR-0042): a second of
/// simulated time, over a thousand times what the shipped kernels take in
/// bench/kernel_vs_driver.sh (590 us on 1,024 PEs); a kernel polling a flag
/// across SIPs forever reaches it after ~850,000 polls, ~25 s of wall-clock
/// time (10 ms took 0.25 s on the 2-core dev machine).
inline constexpr SimTime kernel_default_end{1'000'000'000'000};

/// Checks both options and sets them in `o` ("none": no --max-sim-time,
/// also for a kernel run).
void apply_run_limits(const run_cli& c, machine_options& o);

} // namespace kb
