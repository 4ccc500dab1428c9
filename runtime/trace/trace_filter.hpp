#pragma once
// What a trace of a large run keeps (`run --trace-select / --trace-window /
// --trace-kinds`, and `trace convert` with the same options), decided while
// the run goes so that memory and file size follow what is selected:
// - nodes: glob patterns over node names (`sip1.cube2.*`, `*.pe0.*`; `*`
//   any run of characters, `?` one). Decided once per node when its
//   recorder is made: a node no pattern matches gets no trace recorder,
//   except that one which sends hops keeps those whose receiver is selected
//   and the receipts of those from selected nodes (a hop and its receipt
//   are kept when either end is selected: the links touching the
//   selection);
// - a window [from, to] of simulated time, applied per record: a record
//   outside it is dropped, and so is the end of a slice whose start was
//   dropped, so every slice kept ends where it began (one that outlasts
//   the window stays open); a hop is kept when its head arrives in it (its
//   receipt is drawn, and its send and arrow when it is sent in the window
//   too), a service span when its request arrives and it begins in it;
// - kinds: `stages` (the units' stages, the PE_CPU's kernel and wait
//   slices, the memory channels' service spans), `events` (the instants:
//   command submitted, dispatched, tile ready, command complete), `hops`
//   (every message hop and receipt, as --trace-hops), `counters` (the
//   JSON's counter tracks, drawn from the kept spans and hops).
//
// The run and `trace convert` take the same decisions record by record
// (trace_gate, one per node, in the node's order), so a filtered run and
// the filtered conversion of an unfiltered trace give the same bytes.

#include "runtime/engine/recorder.hpp"
#include "runtime/trace/chrome_trace.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

class trace_stream_writer;

struct trace_filter {
  std::vector<std::string> patterns; ///< node globs; empty: every node
  SimTime from{0};
  SimTime to = SimTime::infinity();
  bool stages = true, events = true, hops = false;
  bool counters = true; ///< the JSON's counter tracks (drawn from stages and hops)

  /// Whether a pattern matches the node's name (every node without patterns).
  bool selects(std::string_view name) const;
  bool keeps_kind(trace_kind k) const;
  bool in_window(SimTime t) const { return from <= t && t <= to; }
  /// What the JSON writer leaves out for this filter.
  chrome_trace_cut cut() const { return {from, to, counters}; }
};

/// `*` matches any run of characters (dots too), `?` one character.
bool glob_match(std::string_view pattern, std::string_view text);

/// A filter bound to a machine's node names (in id order).
class trace_selection {
public:
  trace_selection(trace_filter f, const std::vector<std::string>& names);
  const trace_filter& filter() const { return filter_; }
  /// By node id; false for an id without a name.
  bool selected(node_id n) const {
    return n < selected_.size() && selected_[n];
  }

private:
  trace_filter filter_;
  std::vector<char> selected_;
};

/// The decisions for one node's records, in the node's order.
class trace_gate {
public:
  trace_gate(std::shared_ptr<const trace_selection> sel, bool selected);
  /// Whether to keep `r` (a record of this gate's node); notes open slices.
  bool keep(const trace_record& r);
  /// A node that is not selected keeps at most its hops to selected nodes.
  bool selected() const { return selected_; }
  const trace_selection& selection() const { return *sel_; }

private:
  struct lane_slices {
    uint32_t kept = 0,
             dropped = 0; ///< open slices whose start was kept / dropped
  };
  bool keep_slice_edge(const trace_record& r, bool begins, bool keep);

  std::shared_ptr<const trace_selection> sel_;
  bool selected_;
  std::vector<lane_slices> lanes_;
};

/// A node's trace recorder behind its gate: forwards what the gate keeps.
class filtered_recorder final : public recorder {
public:
  filtered_recorder(trace_gate gate, std::shared_ptr<recorder> inner);
  void record(trace_kind kind, SimTime t, node_id node,
              const service_tag& tag) override;
  void message(const message_note& m, const service_tag& tag) override;
  void service(SimTime t, node_id node, SimTime begin, SimTime end,
               const service_tag& tag) override;
  bool wants_hops() const override { return hops_; }
  void events(uint64_t n, SimTime now) override { inner_->events(n, now); }
  std::vector<char> take_records() override { return inner_->take_records(); }

private:
  trace_gate gate_;
  std::shared_ptr<recorder> inner_;
  bool hops_;
};

/// Node `name`'s trace recorders: in memory when `record` (or hops without
/// a stream), streamed to `stream` when set; behind `sel`'s gate when set.
/// Null when there is nothing to record for the node.
std::shared_ptr<recorder>
make_trace_recorder(std::string_view name, bool record, bool hops,
                    const std::shared_ptr<trace_stream_writer>& stream,
                    const std::shared_ptr<const trace_selection>& sel);

} // namespace kb
