#include "runtime/trace/trace_filter.hpp"

#include "runtime/trace/trace_stream.hpp"

#include <algorithm>

namespace kb {

namespace {

bool begins_slice(trace_kind k) {
  return k == trace_kind::engine_start || k == trace_kind::call_start;
}

bool ends_slice(trace_kind k) {
  return k == trace_kind::engine_complete || k == trace_kind::call_end;
}

} // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  // Greedy with one backtrack point: the last `*` seen.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

bool trace_filter::selects(std::string_view name) const {
  return patterns.empty() ||
         std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return glob_match(p, name); });
}

bool trace_filter::keeps_kind(trace_kind k) const {
  if (k == trace_kind::message_hop || k == trace_kind::message_receive)
    return hops;
  if (begins_slice(k) || ends_slice(k) || k == trace_kind::service)
    return stages;
  return events;
}

trace_selection::trace_selection(trace_filter f,
                                 const std::vector<std::string>& names)
    : filter_(std::move(f)), selected_(names.size()) {
  for (size_t i = 0; i < names.size(); ++i)
    selected_[i] = filter_.selects(names[i]);
}

trace_gate::trace_gate(std::shared_ptr<const trace_selection> sel,
                       bool selected)
    : sel_(std::move(sel)), selected_(selected) {}

bool trace_gate::keep_slice_edge(const trace_record& r, bool begins,
                                 bool keep) {
  if (lanes_.size() <= r.tag.lane)
    lanes_.resize(size_t{r.tag.lane} + 1);
  lane_slices& l = lanes_[r.tag.lane];
  if (begins) {
    ++(keep ? l.kept : l.dropped);
    return keep;
  }
  // A node's records go forward in time, so the slices open before the
  // window (dropped) enclose those opened in it (kept): an end closes a
  // kept slice first.
  if (l.kept > 0) {
    --l.kept;
    return keep;
  }
  if (l.dropped > 0) {
    --l.dropped;
    return false;
  }
  return keep; // an end without a start: as the unfiltered trace has it
}

bool trace_gate::keep(const trace_record& r) {
  const trace_filter& f = sel_->filter();
  // A hop when its head arrives in the window (its receipt is drawn; its
  // send and arrow too when it is sent in the window).
  if (r.kind == trace_kind::message_hop)
    return f.hops && f.in_window(r.arrival) && (selected_ || sel_->selected(r.peer));
  // A receipt of an earlier stream as its hop: when either end is selected.
  if (r.kind == trace_kind::message_receive)
    return f.hops && f.in_window(r.t) && (selected_ || sel_->selected(r.peer));
  if (!selected_)
    return false;
  // A service span when its request arrives and it begins in the window.
  if (r.kind == trace_kind::service)
    return f.keeps_kind(r.kind) && f.in_window(r.t) && f.in_window(r.arrival);
  const bool keep = f.keeps_kind(r.kind) && f.in_window(r.t);
  if (begins_slice(r.kind) || ends_slice(r.kind))
    return keep_slice_edge(r, begins_slice(r.kind), keep);
  return keep;
}

void filtered_recorder::message(const message_note& m, const service_tag& tag) {
  if (gate_.keep(message_record(m, 0, tag)))
    inner_->message(m, tag);
}

void filtered_recorder::service(SimTime t, node_id node, SimTime begin, SimTime end,
                                const service_tag& tag) {
  if (gate_.keep(service_record(t, node, 0, begin, end, tag)))
    inner_->service(t, node, begin, end, tag);
}

filtered_recorder::filtered_recorder(trace_gate gate,
                                     std::shared_ptr<recorder> inner)
    : gate_(std::move(gate)), inner_(std::move(inner)),
      hops_(gate_.selection().filter().hops && inner_->wants_hops()) {}

void filtered_recorder::record(trace_kind kind, SimTime t, node_id node,
                               const service_tag& tag) {
  if (gate_.keep({kind, t, node, 0, tag, no_node, SimTime{}}))
    inner_->record(kind, t, node, tag);
}


std::shared_ptr<recorder>
make_trace_recorder(std::string_view name, bool record, bool hops,
                    const std::shared_ptr<trace_stream_writer>& stream,
                    const std::shared_ptr<const trace_selection>& sel) {
  const bool selected = !sel || sel->filter().selects(name);
  // A node outside the selection records only its hops to and receipts
  // from selected nodes.
  if (!selected && !(hops && sel->filter().hops))
    return nullptr;
  std::shared_ptr<recorder> rec;
  if (record || (hops && !stream))
    rec = std::make_shared<trace_recorder>(hops);
  if (stream)
    rec = std::make_shared<stream_recorder>(stream, std::move(rec));
  if (sel && rec)
    rec = std::make_shared<filtered_recorder>(trace_gate(sel, selected),
                                              std::move(rec));
  return rec;
}

} // namespace kb
