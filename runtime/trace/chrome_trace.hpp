#pragma once
// Chrome trace-event JSON (Perfetto, chrome://tracing), written record by
// record so a streamed trace converts in constant memory; the in-memory
// trace (`run --trace X.json`) goes through the same writer, so both give
// the same bytes for the same run.
//
// Tracks: one process per PE (or per cube for the cube's own nodes:
// HBM, XBAR, NOC, ...), named by its id (process_name); one thread per unit
// lane, named "unit/lane" (thread_name). engine_start/complete are B/E
// slices, other events instants; with message hops, each hop is also an
// instant named by its message kind ("hop mem_read -> sip0.cube0.xbar") and a
// flow (s at the sender when sent, f at the receiver when its head arrives)
// so a tile can be followed from unit to unit.

#include "runtime/trace/trace_recorder.hpp"

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

class chrome_trace_writer {
public:
  /// A hop's message kind in words (message_kind_name of the pipeline,
  /// which this layer does not see); null: "k<number>".
  using kind_namer = std::string_view (*)(uint16_t kind);

  /// `nodes`: every node that has at least one record (their parents are
  /// the processes, numbered in name order); `names` by node id.
  chrome_trace_writer(std::ostream& out, const std::vector<std::string>& names,
                      const std::set<node_id>& nodes, kind_namer kinds = nullptr);
  /// The next record, in key order (time, node, seq).
  void add(const trace_record& r);
  /// Closes the JSON document.
  void finish();

private:
  const std::string& name_of(node_id n) const;
  std::string parent(node_id n) const;
  void sep();
  /// Notes the track of `r` and, from its first stage, the lane's name.
  void note_thread(int pid, uint64_t tid, const trace_record& r);
  void flow(int pid, uint64_t tid, const trace_record& r);

  std::ostream& out_;
  const std::vector<std::string>& names_;
  std::map<std::string, int> pids_;
  /// Every track (pid, tid) with its lane's name: the summary's
  /// (lane_name of the stages it serves), or empty for a track without
  /// stages (its lane number). Written as thread_name at the end, once
  /// every track's first stage is known.
  std::map<std::pair<int, uint64_t>, std::string> threads_;
  kind_namer kinds_;
  bool first_ = true;
  uint64_t flows_ = 0;
};

} // namespace kb
