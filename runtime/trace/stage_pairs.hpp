#pragma once
// A stage's service on its unit (DESIGN §4 rule 9) from the trace records
// that bound it: engine_start and engine_complete of one node lane. One
// stage_pairer per trace read, fed the records of each node in that node's
// order; it keeps one open stage per node lane.

#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace kb {

/// One stage's service on its unit lane.
struct stage_record {
  node_id node;
  uint16_t lane;
  stage_type type;
  uint64_t command;
  uint64_t tile;
  SimTime start, end;
  uint64_t bytes;
};

class stage_pairer {
public:
  /// Takes one record; returns the stage it ends (an engine_complete whose
  /// lane has an open engine_start), else nullopt.
  std::optional<stage_record> add(const trace_record& r);
  /// engine_complete records that had no open stage on their lane.
  uint64_t unmatched() const { return unmatched_; }

private:
  std::map<std::pair<node_id, uint16_t>, trace_record> open_;
  uint64_t unmatched_ = 0;
};

} // namespace kb
