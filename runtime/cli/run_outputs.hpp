#pragma once
// A run's outputs, the same for the built-in driver and a kernel: what the
// run records for them (--json, --trace, --trace-stream, --trace-hops), its
// progress line, and writing them once the report is ready.

#include "runtime/cli/heartbeat.hpp"
#include "runtime/cli/run_cli.hpp"
#include "runtime/driver/driver_run.hpp"
#include "runtime/report/run_report.hpp"

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>

namespace kb {

/// Sets `opts.record`, `trace_hops` and `stream` from `c`; refuses
/// --trace-stream with a split run (the other processes' nodes record there).
void prepare_outputs(const run_cli& c, driver_options& opts);

/// The progress line on standard error (none with --quiet or on a worker
/// process); `opts.progress` is set for it. `totals.commands` 0: unknown
/// (a kernel's commands are known once it has run).
std::unique_ptr<heartbeat> start_heartbeat(const run_cli& c, driver_options& opts,
                                           const std::string& who, progress_totals totals);

/// Fills the JSON's `kernbench` (this build's version and git hash) and
/// `machine` (`doc`, the topology as resolved after --set) of `rep`.
void describe_reproduction(report_input& rep, const YAML::Node& doc);

/// Writes --json, --trace, finishes --trace-stream (after the machine's
/// teardown) and appends the --csv row, from `rep` (index_commands done).
void write_outputs(const run_cli& c, const report_input& rep, const driver_options& opts);

} // namespace kb
