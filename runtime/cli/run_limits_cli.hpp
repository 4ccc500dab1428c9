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

/// Checks both options and sets them in `o`.
void apply_run_limits(const run_cli& c, machine_options& o);

} // namespace kb
