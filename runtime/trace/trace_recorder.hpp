#pragma once
// The recorder behind every node's hooks when tracing is on: keeps the
// node's records in order and hands them back as a Cap'n Proto TraceChunk.

#include "runtime/engine/protocol.hpp"
#include "runtime/engine/recorder.hpp"

#include <vector>

namespace kb {

struct trace_record {
  trace_kind kind;
  SimTime t;
  node_id node;
  uint32_t seq; ///< per node, in the order the node recorded them
  service_tag tag;
};

class trace_recorder final : public recorder {
public:
  void record(trace_kind kind, SimTime t, node_id node,
              const service_tag& tag) override;
  std::vector<char> take_records() override;

private:
  std::vector<trace_record> records_;
};

/// All records of a run, merged in key order (time, node, seq): the same
/// whatever the thread or process count.
std::vector<trace_record> merge_records(const std::vector<node_summary>& nodes);

} // namespace kb
