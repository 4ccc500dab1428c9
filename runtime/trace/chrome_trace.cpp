#include "runtime/trace/chrome_trace.hpp"

#include "runtime/plan/pipeline_plan.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace kb {

namespace {

const std::string unknown = "?";

/// A PE_CPU slice: the kernel, or what it waits for.
std::string call_name(uint16_t what, uint64_t command) {
  switch (what) {
    case kernel_slice: return "kernel";
    case 0: return fmt::format("load c{} (blocked)", command);
    case 1: return command ? fmt::format("wait c{}", command) : std::string("wait_all");
    case 2: return "wait for TCM";
  }
  return "?";
}

std::string ps_to_us(SimTime t) {
  return fmt::format("{}.{:06d}", t.ps() / 1000000, t.ps() % 1000000);
}

} // namespace

chrome_trace_writer::chrome_trace_writer(std::ostream& out, const std::vector<std::string>& names,
                                         const std::set<node_id>& nodes, kind_namer kinds)
  : out_(out), names_(names), kinds_(kinds) {
  for (node_id n : nodes)
    pids_.emplace(parent(n), 0);
  int next = 1;
  for (auto& [name, pid] : pids_)
    pid = next++;
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  for (const auto& [name, pid] : pids_) {
    sep();
    fmt::print(out_, R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"{}"}}}})",
               pid, name);
  }
}

const std::string& chrome_trace_writer::name_of(node_id n) const {
  return n < names_.size() ? names_[n] : unknown;
}

std::string chrome_trace_writer::parent(node_id n) const {
  const std::string& name = name_of(n);
  return name.substr(0, name.rfind('.'));
}

void chrome_trace_writer::sep() {
  if (!first_)
    out_ << ",\n";
  first_ = false;
}

void chrome_trace_writer::note_thread(int pid, uint64_t tid, const trace_record& r) {
  std::string& lane = threads_[{pid, tid}];
  if (lane.empty() && r.kind == trace_kind::engine_start)
    lane = lane_name(static_cast<stage_type>(r.tag.what));
}

void chrome_trace_writer::add(const trace_record& r) {
  // pid: the node's parent (PE or cube); tid: node id * 8 + lane.
  const int pid = pids_[parent(r.node)];
  const uint64_t tid = uint64_t{r.node} * 8 + r.tag.lane;
  note_thread(pid, tid, r);
  sep();
  const std::string ts = ps_to_us(r.t);
  const auto what = static_cast<stage_type>(r.tag.what);
  switch (r.kind) {
    case trace_kind::engine_start:
      fmt::print(out_,
                 R"({{"ph":"B","pid":{},"tid":{},"ts":{},"name":"{} c{} t{}","args":{{"command":{},"tile":{},"bytes":{}}}}})",
                 pid, tid, ts, to_string(what), r.tag.context, r.tag.item, r.tag.context,
                 r.tag.item, r.tag.bytes);
      break;
    case trace_kind::engine_complete:
      fmt::print(out_, R"({{"ph":"E","pid":{},"tid":{},"ts":{}}})", pid, tid, ts);
      break;
    case trace_kind::call_start:
      fmt::print(out_, R"({{"ph":"B","pid":{},"tid":{},"ts":{},"name":"{}","args":{{"command":{}}}}})",
                 pid, tid, ts, call_name(r.tag.what, r.tag.context), r.tag.context);
      break;
    case trace_kind::call_end:
      fmt::print(out_, R"({{"ph":"E","pid":{},"tid":{},"ts":{}}})", pid, tid, ts);
      break;
    case trace_kind::message_hop:
      fmt::print(out_,
                 R"({{"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"name":"hop {} -> {}","args":{{"arrival_us":{},"command":{},"tile":{},"bytes":{}}}}})",
                 pid, tid, ts,
                 kinds_ ? std::string(kinds_(r.tag.what)) : fmt::format("k{}", r.tag.what),
                 name_of(r.peer), ps_to_us(r.arrival), r.tag.context, r.tag.item, r.tag.bytes);
      flow(pid, tid, r);
      break;
    default:
      fmt::print(out_,
                 R"({{"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"name":"{}","args":{{"command":{},"item":{}}}}})",
                 pid, tid, ts, to_string(r.kind), r.tag.context, r.tag.item);
  }
}

void chrome_trace_writer::flow(int pid, uint64_t tid, const trace_record& r) {
  // A flow from the sender's track (when sent; bound to the slice open
  // there) to lane 0 of the receiver (when its head arrives; bound, as a
  // flow end without "bp", to the next slice there: the stage that serves
  // it), named by command and tile like the slices.
  const auto to = pids_.find(parent(r.peer));
  if (r.peer >= names_.size() || to == pids_.end())
    return;
  const uint64_t id = ++flows_;
  sep();
  fmt::print(out_,
             R"({{"ph":"s","cat":"hop","id":{},"pid":{},"tid":{},"ts":{},"name":"c{} t{}"}})",
             id, pid, tid, ps_to_us(r.t), r.tag.context, r.tag.item);
  sep();
  fmt::print(out_,
             R"({{"ph":"f","cat":"hop","id":{},"pid":{},"tid":{},"ts":{},"name":"c{} t{}"}})",
             id, to->second, uint64_t{r.peer} * 8, ps_to_us(r.arrival), r.tag.context,
             r.tag.item);
}

void chrome_trace_writer::finish() {
  // Track names last: a track's name is its lane's (pe_dma/read, as in the
  // summary), known from its first stage, which may come after its first
  // record (a hop).
  for (const auto& [track, lane] : threads_) {
    const auto& [pid, tid] = track;
    const std::string& name = name_of(static_cast<node_id>(tid / 8));
    sep();
    fmt::print(out_,
               R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}/{}"}}}})",
               pid, tid, name.substr(name.rfind('.') + 1),
               lane.empty() ? std::to_string(tid % 8) : lane);
  }
  out_ << "\n]}\n";
}

} // namespace kb
