#pragma once
// `kernbench trace stats`: per unit lane the stages served, busy time and
// share of the trace's span, and the N longest stages, from a trace read
// once in file order (constant memory: one open stage per lane).

#include "runtime/trace/trace_stream_reader.hpp"

#include <ostream>

namespace kb {

struct lane_stats {
  uint64_t stages = 0, busy_ps = 0, longest_ps = 0;
  uint64_t first_ps = UINT64_MAX, last_ps = 0; ///< first start, last end
  uint16_t what = 0; ///< the stage type it serves (its first stage's): names the lane
};

struct stage_span {
  uint64_t duration_ps, start_ps;
  node_id node;
  uint16_t lane, what;
  uint64_t command, tile;
};

struct trace_stats {
  std::map<std::pair<node_id, uint16_t>, lane_stats> lanes;
  std::vector<stage_span> longest; ///< longest first
  uint64_t start_ps = 0; ///< the first record's time (a windowed trace: about T0)
  uint64_t end_ps = 0;   ///< the last record's
  uint64_t records = 0;
  /// What utilisation is of: from the first record to the last.
  uint64_t span_ps() const { return end_ps - start_ps; }
};

trace_stats compute_trace_stats(const trace_reader& in, size_t top);
void print_trace_stats(std::ostream& out, const trace_reader& in, const trace_stats& s);

} // namespace kb
