#pragma once
// What `kernbench run` reports: the readable summary and the JSON results
// (per PE and command: issue, done, latency, tiles, and per stage type the
// tiles served and busy time; per unit busy/stall figures; bytes per link;
// achieved vs peak).

#include "runtime/engine/phase_clock.hpp"
#include "runtime/engine/protocol.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/io/json_writer.hpp"
#include "runtime/report/memory_report.hpp"
#include "runtime/report/kernel_report.hpp"
#include "runtime/report/pe_commands.hpp"
#include "runtime/report/pe_groups.hpp"
#include "runtime/trace/stage_pairs.hpp"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace kb {

/// `schema_version` of the JSON results (docs/results-schema.md): raised on
/// any change a reader would notice.
/// MAJOR.MINOR: additions at the end of an object raise the minor
/// version; renamed, removed or redefined fields the major
/// (docs/results-schema.md, schema/results.schema.json).
inline constexpr const char* report_schema_version = "6.4";

struct report_input {
  std::string topology_file;
  std::vector<std::string> overrides;  ///< `--set KEY=VALUE`, in order
  std::vector<std::string> pes;        ///< PE prefixes that ran the driver or the kernel
  /// What ran, for the summary's first line and the CSV: "gemm 512x512x512
  /// f16 tiles 128x128x128" (the driver's first command), "kernel softmax".
  std::string label;
  std::vector<std::string> program;    ///< the driver's commands (each PE's); empty for a kernel
  const kernel_info* kernel = nullptr; ///< run --kernel: the JSON's `kernel` object
  size_t threads = 1;
  uint64_t clock_period_ps = 1000;
  uint64_t mac_rows = 32, mac_cols = 32, math_lanes = 64;
  /// The element type the run computes in (`--dtype`, a kernel's `dtype`
  /// argument): its compute counts OP/s for an integer type and FLOP/s for
  /// a floating one, and PE_GEMM's rate of it, mac_rate_num / mac_rate_den
  /// of the f16 rate, scales the peak (ADR-0032).
  dtype compute_dtype = dtype::f16;
  uint64_t mac_rate_num = 1, mac_rate_den = 1;
  uint64_t hbm_mbps = 512000;          ///< per cube
  uint32_t cubes = 1;
  const run_result* result = nullptr;
  std::vector<std::string> names;      ///< node names by id
  std::vector<trace_record> records;   ///< merged, in key order
  std::vector<pe_commands> commands;   ///< per PE of `pes`: index_commands() fills it
  pe_group_summary groups;             ///< over the PEs: index_commands() fills it
  /// Every PE's lines in the summary, however many PEs ran (`--per-pe`);
  /// otherwise a run of more than summary_pe_lines PEs gets one line per
  /// unit, link and command over its PEs (pe_groups.hpp).
  bool per_pe = false;
  /// Every command's line in the summary (`--per-command`): a kernel's or a
  /// host program's run otherwise prints the author's report
  /// (author_report.hpp), or with --per-pe its PEs' figures alone.
  bool per_command = false;
  /// The JSON's `kernbench` object: the version and the git hash of the
  /// build that ran (empty: null).
  std::string version, git_hash;
  /// Writes the JSON's `machine` value: the topology document as the run
  /// resolved it (after --set); unset: null.
  std::function<void(json_writer&)> machine;
  /// A stop request ended the run (runtime/io/stop_request.hpp): the
  /// signal (SIGINT, SIGTERM); 0: the machine went quiet, the run is whole.
  int stopped_by = 0;
  /// The JSON's `invocation`: how the run was started. It differs between
  /// runs whose results are the same (threads, processes, host), so it is
  /// the document's last field and byte comparisons leave it out.
  struct invocation_info {
    std::vector<std::string> command; ///< the argv
    std::string host;
    uint64_t seed = 1;
    uint32_t processes = 1;
  } invocation;
  /// The text report as printed (--out keeps it as summary.txt).
  std::string summary_text;
  /// The run's phases (the JSON's `timings`, after `invocation`: wall-clock
  /// figures, never compared, of the phases before the file was written);
  /// write_outputs marks its own. Null: not timed.
  phase_clock* phases = nullptr;
  /// `--memory`: the heap each node kind held once built (the JSON's
  /// `memory`, after `timings`, only when measured; memory_report.hpp).
  std::vector<kind_memory> memory;
};

/// Pairs engine_start / engine_complete per node lane (stage_pairer);
/// throws std::logic_error on a complete without its start.
std::vector<stage_record> stage_records(const std::vector<trace_record>& records);

/// Fills `in.commands` and `in.groups` from `in.result` (once, before the
/// report is written).
void index_commands(report_input& in);

void write_summary(std::ostream& out, const report_input& in);
/// The summary's first lines: what ran, on how many PEs, the machine, and
/// whether a signal stopped it.
void write_run_header(std::ostream& out, const report_input& in);
/// The summary's last lines: the engine's figures and the throughput.
void write_run_tail(std::ostream& out, const report_input& in);
std::string report_json(const report_input& in);

} // namespace kb
