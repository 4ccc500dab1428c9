#pragma once
// Chrome trace-event JSON (Perfetto, chrome://tracing), written record by
// record so a streamed trace converts in constant memory; the in-memory
// trace (`run --trace X.json`) goes through the same writer, so both give
// the same bytes for the same run.
//
// Tracks: one process per PE (or per cube for the cube's own nodes:
// HBM, XBAR, NOC, ...), named by its id (process_name); one thread per unit
// lane, named "unit/lane" (thread_name). engine_start/complete are B/E
// slices, other events instants; with message hops, each hop is also a
// flow (s at the sender when sent, f at the receiver when its head arrives)
// so a tile can be followed from unit to unit.

#include "runtime/trace/trace_recorder.hpp"

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace kb {

class chrome_trace_writer {
public:
  /// `nodes`: every node that has at least one record (their parents are
  /// the processes, numbered in name order); `names` by node id.
  chrome_trace_writer(std::ostream& out, const std::vector<std::string>& names,
                      const std::set<node_id>& nodes);
  /// The next record, in key order (time, node, seq).
  void add(const trace_record& r);
  /// Closes the JSON document.
  void finish();

private:
  const std::string& name_of(node_id n) const;
  std::string parent(node_id n) const;
  void sep();
  int thread(int pid, uint64_t tid, node_id node, uint16_t lane);
  void flow(int pid, uint64_t tid, const trace_record& r);

  std::ostream& out_;
  const std::vector<std::string>& names_;
  std::map<std::string, int> pids_;
  std::set<std::pair<int, uint64_t>> threads_;
  bool first_ = true;
  uint64_t flows_ = 0;
};

} // namespace kb
