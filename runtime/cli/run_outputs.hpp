#pragma once
// A run's outputs, the same for the built-in driver and a kernel: what the
// run records for them (--json, --trace, --trace-stream, --trace-hops), its
// progress line, and writing them once the report is ready.

#include "runtime/cli/heartbeat.hpp"
#include "runtime/cli/run_cli.hpp"
#include "runtime/run/machine_run.hpp"
#include "runtime/report/run_report.hpp"

#include <filesystem>
#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>
#include <vector>

namespace kb {

/// Sets `opts.record`, `trace_hops` and `stream` from `c`; refuses
/// --trace-stream with a split run (the other processes' nodes record there).
void prepare_outputs(const run_cli& c, machine_options& opts);

/// The progress line on standard error (none with --quiet or on a worker
/// process); `opts.progress` is set for it. `totals.commands` 0: unknown
/// (a kernel's commands are known once it has run).
std::unique_ptr<heartbeat> start_heartbeat(const run_cli& c, machine_options& opts,
                                           const std::string& who, progress_totals totals);

/// Fills what reproduces the run: the JSON's `kernbench` (this build's
/// version and git hash), `machine` (`doc`, the topology as resolved after
/// --set), `invocation` (the command line, host, seed, processes) and
/// whether a stop request ended it (`result`: the run's).
void describe_reproduction(report_input& rep, const YAML::Node& doc, const run_cli& c,
                           uint32_t processes, const run_result& result);

/// The command line the JSON's `invocation` names: what
/// set_invocation_command gave, else this process's own (/proc/self/cmdline).
std::vector<std::string> invocation_command();
/// For a process that runs commands in-process (the Python module): the
/// command line they stand for.
void set_invocation_command(std::vector<std::string> command);

/// The exit status of a run that ended well: 128 + the signal when one asked
/// it to stop (130 SIGINT, 143 SIGTERM), even if it came too late to.
int status_after_run(int status);

/// --out DIR: makes DIR (and its parents), puts every output named by a
/// relative path (--trace, --trace-stream, --oplog, --op-digests,
/// --dump-tensors, --json, --csv) in it, and names the ones not asked for
/// that it always holds: result.json (--json) and, written by
/// write_outputs, machine.json (the topology as resolved: `run --topology
/// DIR/machine.json` reruns it) and summary.txt (the report). Refuses a DIR
/// that is a file. Returns the folders it made (outermost first).
std::vector<std::filesystem::path> apply_out_dir(run_cli& c);
/// After a run that failed: removes those of `made` that are still empty
/// (innermost first), so a refused run leaves no folder of its own behind.
void remove_empty_made_folders(const std::vector<std::filesystem::path>& made);

/// Before the machine is built: every output file can be written where it
/// is named (the same check as the write at the end: its folder exists and
/// takes a file; not a folder itself), so that no run is simulated only to
/// fail there. Throws std::invalid_argument (bad input, exit 2) naming the
/// option and the reason.
void check_output_paths(const run_cli& c);

/// Prints the report on standard output (`write_summary`) and, with --out,
/// keeps it for summary.txt.
void print_summary(const run_cli& c, report_input& rep);

/// Writes --json, --trace, finishes --trace-stream (after the machine's
/// teardown), appends the --csv row and, with --out, writes machine.json and
/// summary.txt, from `rep` (index_commands done).
void write_outputs(const run_cli& c, const report_input& rep, const machine_options& opts);

} // namespace kb
