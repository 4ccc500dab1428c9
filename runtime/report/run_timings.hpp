#pragma once
// A run's phases in words and in the JSON (`kernbench run --timings`, the
// results' `timings`; runtime/engine/phase_clock.hpp): how long each took
// and how much memory the process held when it ended.

#include "runtime/engine/phase_clock.hpp"
#include "runtime/io/json_writer.hpp"

#include <iosfwd>

namespace kb {

/// The JSON's `timings` value: the phases marked so far (those before the
/// file was written), their sum, the event loop's part of it and the peak
/// resident memory; null when the run was not timed.
void write_timings_json(json_writer& j, const phase_clock* clock);

/// The `timings` section of the text report: a line per phase, the total,
/// and the time outside the event loop.
void print_timings(std::ostream& out, const phase_clock& clock);

} // namespace kb
