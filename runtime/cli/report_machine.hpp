#pragma once
// The machine's facts a run's report needs (peak FLOP/s and bandwidth):
// the same for a driver run and a kernel run.

#include "runtime/config/topology_spec.hpp"
#include "runtime/report/run_report.hpp"

namespace kb {

/// Sets `rep`'s clock, MAC array, MATH lanes, HBM bandwidth and the number
/// of cubes its PEs (`rep.pes`, set before) are in, from `machine`, and
/// PE_GEMM's rate of `rep.compute_dtype` (set before).
void describe_machine(report_input& rep, const topology_spec& machine);

} // namespace kb
