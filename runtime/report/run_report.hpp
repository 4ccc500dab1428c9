#pragma once
// What `kernbench run` reports: the readable summary and the JSON results
// (per PE and command: issue, done, latency, tiles, stage records by stage
// type; per unit busy/stall figures; bytes per link; achieved vs peak).

#include "runtime/engine/protocol.hpp"
#include "runtime/pipeline/command.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace kb {

/// `schema_version` of the JSON results (docs/results-schema.md): raised on
/// any change a reader would notice.
inline constexpr uint64_t report_schema_version = 1;

struct report_input {
  std::string topology_file;
  std::vector<std::string> overrides;  ///< `--set KEY=VALUE`, in order
  std::vector<std::string> pes;        ///< PE prefixes that ran the driver
  std::vector<pe_command> program;     ///< commands each PE issued
  size_t threads = 1;
  uint64_t clock_period_ps = 1000;
  uint64_t mac_rows = 32, mac_cols = 32, math_lanes = 64;
  uint64_t hbm_mbps = 512000;          ///< per cube
  uint32_t cubes = 1;
  const run_result* result = nullptr;
  std::vector<std::string> names;      ///< node names by id
  std::vector<trace_record> records;   ///< merged, in key order
  /// Every PE's lines in the summary, however many PEs ran (`--per-pe`);
  /// otherwise a run of more than summary_pe_lines PEs gets one line per
  /// unit, link and command over its PEs (pe_groups.hpp).
  bool per_pe = false;
};

/// One stage's service on its unit (DESIGN §4 rule 9).
struct stage_record {
  node_id node;
  uint16_t lane;
  stage_type type;
  uint64_t command;
  uint64_t tile;
  SimTime start, end;
  uint64_t bytes;
};

/// Pairs engine_start / engine_complete per node lane.
std::vector<stage_record> stage_records(const std::vector<trace_record>& records);

void write_summary(std::ostream& out, const report_input& in);
std::string report_json(const report_input& in);

} // namespace kb
