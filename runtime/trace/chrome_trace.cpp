#include "runtime/trace/chrome_trace.hpp"

#include "runtime/plan/pipeline_plan.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace kb {

namespace {

const std::string unknown = "?";

/// Tracks of a node: its lanes, its service spans, its "in" tracks.
constexpr uint64_t tids_per_node = 4096;
constexpr uint64_t serve_base = 1024;
constexpr uint64_t in_base = 2048;
constexpr uint64_t no_track = ~uint64_t{0};
constexpr size_t no_counter = ~size_t{0};

/// A unit's input queue, named by the lane it feeds (its stage type).
std::string queue_name(uint16_t queue) {
  const std::string_view lane = lane_name(static_cast<stage_type>(queue));
  return queue <= static_cast<uint16_t>(stage_type::dma_write) && lane != "?"
           ? std::string(lane)
           : fmt::format("queue {}", queue);
}

uint64_t track(node_id n, uint64_t sub) {
  return uint64_t{n} * tids_per_node + sub;
}

/// A PE_CPU slice: the kernel, or what it waits for; a host's launch.
std::string call_name(uint16_t what, uint64_t command) {
  switch (what) {
    case kernel_slice: return "kernel";
    case launch_slice: return fmt::format("launch {}", command);
    case 0: return fmt::format("load c{} (blocked)", command);
    case 1: return command ? fmt::format("wait c{}", command) : std::string("wait_all");
    case 2: return "wait for TCM";
  }
  return "?";
}

/// Names compared with their runs of digits as numbers: sip0.cube0.pe2 <
/// sip0.cube0.pe10.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])))
        ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])))
        ++ej;
      const std::string_view x = std::string_view(a).substr(i, ei - i);
      const std::string_view y = std::string_view(b).substr(j, ej - j);
      const auto nx = x.find_first_not_of('0'), ny = y.find_first_not_of('0');
      const std::string_view sx = nx == std::string_view::npos ? "" : x.substr(nx);
      const std::string_view sy = ny == std::string_view::npos ? "" : y.substr(ny);
      if (sx.size() != sy.size())
        return sx.size() < sy.size();
      if (sx != sy)
        return sx < sy;
      i = ei, j = ej;
      continue;
    }
    if (a[i] != b[j])
      return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

std::string ps_to_us(SimTime t) {
  return fmt::format("{}.{:06d}", t.ps() / 1000000, t.ps() % 1000000);
}

} // namespace

chrome_trace_writer::chrome_trace_writer(std::ostream& out, const std::vector<std::string>& names,
                                         const std::set<node_id>& nodes, kind_namer kinds,
                                         chrome_trace_cut cut)
  : out_(out), names_(names), kinds_(kinds), cut_(cut) {
  for (node_id n : nodes)
    pids_.emplace(parent(n), 0);
  // Processes numbered, and sorted in Perfetto, in natural order: each
  // cube, then its PEs by number (pe2 before pe10).
  std::vector<const std::string*> order;
  for (const auto& [name, pid] : pids_)
    order.push_back(&name);
  std::sort(order.begin(), order.end(),
            [](const std::string* a, const std::string* b) { return natural_less(*a, *b); });
  for (size_t i = 0; i < order.size(); ++i)
    pids_[*order[i]] = static_cast<int>(i + 1);
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  for (const std::string* name : order) {
    sep();
    fmt::print(out_, R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"{}"}}}})",
               pids_[*name], *name);
    sep();
    fmt::print(out_,
               R"({{"ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}}}})",
               pids_[*name], pids_[*name]);
  }
}

const std::string& chrome_trace_writer::name_of(node_id n) const {
  return n < names_.size() ? names_[n] : unknown;
}

std::string chrome_trace_writer::parent(node_id n) const {
  const std::string& name = name_of(n);
  return name.substr(0, name.rfind('.'));
}

std::string chrome_trace_writer::short_name(node_id n) const {
  const std::string& name = name_of(n);
  return name.substr(name.rfind('.') + 1);
}

std::string chrome_trace_writer::kind_name(uint16_t kind) const {
  return kinds_ ? std::string(kinds_(kind)) : fmt::format("k{}", kind);
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
  else if (lane.empty() && r.kind == trace_kind::call_start)
    lane = r.tag.what == launch_slice ? "launches" : "kernel";
}

void chrome_trace_writer::flush_ends() {
  for (const held_end& e : held_ends_) {
    sep();
    out_ << e.text;
    lane_state& lane = slices_[e.node].lanes[e.lane];
    if (lane.open > 0)
      --lane.open;
  }
  held_ends_.clear();
}

void chrome_trace_writer::add(const trace_record& r) {
  // A receipt of an earlier trace: drawn from its hop now.
  if (r.kind == trace_kind::message_receive)
    return;
  arrivals_until(r.t, r.node);
  one(r);
}

void chrome_trace_writer::arrivals_until(SimTime t, node_id node) {
  while (!arrivals_.empty() &&
         std::tie(arrivals_.top().hop.arrival, arrivals_.top().hop.peer) <= std::tie(t, node)) {
    const arrival a = arrivals_.top();
    arrivals_.pop();
    if (a.hop.arrival != group_t_ || a.hop.peer != group_node_) {
      flush_ends();
      counters_.flush(a.hop.arrival, out_, first_);
      group_node_ = a.hop.peer;
      group_t_ = a.hop.arrival;
    }
    receipt(a);
  }
}

void chrome_trace_writer::one(const trace_record& r) {
  if (r.node != group_node_ || r.t != group_t_) {
    flush_ends();
    counters_.flush(r.t, out_, first_);
    group_node_ = r.node;
    group_t_ = r.t;
  }
  const int pid = pids_[parent(r.node)];
  switch (r.kind) {
    case trace_kind::message_hop: hop(pid, r); return;
    case trace_kind::service: service(pid, r); return;
    default: break;
  }
  // A lane's slices and instants: tid node * 4096 + lane.
  const uint64_t tid = track(r.node, r.tag.lane);
  note_thread(pid, tid, r);
  node_slices& ns = slices_[r.node];
  if (ns.lanes.size() <= r.tag.lane)
    ns.lanes.resize(size_t{r.tag.lane} + 1);
  lane_state& lane = ns.lanes[r.tag.lane];
  const std::string ts = ps_to_us(r.t);
  const auto what = static_cast<stage_type>(r.tag.what);
  switch (r.kind) {
    case trace_kind::engine_start:
      ++lane.open;
      lane.last_begin = r.t;
      sep();
      fmt::print(out_,
                 R"({{"ph":"B","pid":{},"tid":{},"ts":{},"name":"{} c{} t{}","args":{{"command":{},"tile":{},"bytes":{}}}}})",
                 pid, tid, ts, to_string(what), r.tag.context, r.tag.item, r.tag.context,
                 r.tag.item, r.tag.bytes);
      break;
    case trace_kind::call_start:
      ++lane.open;
      lane.last_begin = r.t;
      sep();
      if (r.tag.what == kernel_slice && r.tag.context > 0) { // a program's kernel
        const uint64_t launch = r.tag.context - 1;
        fmt::print(out_,
                   R"j({{"ph":"B","pid":{},"tid":{},"ts":{},"name":"kernel (launch {})","args":{{"launch":{}}}}})j",
                   pid, tid, ts, launch, launch);
        launch_flow(launch, pid, tid, ts);
        break;
      }
      fmt::print(out_, R"({{"ph":"B","pid":{},"tid":{},"ts":{},"name":"{}","args":{{"command":{}}}}})",
                 pid, tid, ts, call_name(r.tag.what, r.tag.context), r.tag.context);
      if (r.tag.what == launch_slice)
        launches_[r.tag.context] = fmt::format(R"("pid":{},"tid":{},"ts":{})", pid, tid, ts);
      break;
    case trace_kind::engine_complete:
    case trace_kind::call_end:
      // Open until the node's records of this time are done.
      held_ends_.push_back(
        {fmt::format(R"({{"ph":"E","pid":{},"tid":{},"ts":{}}})", pid, tid, ts), r.node, r.tag.lane});
      break;
    default:
      sep();
      fmt::print(out_,
                 R"({{"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"name":"{}","args":{{"command":{},"item":{}}}}})",
                 pid, tid, ts, to_string(r.kind), r.tag.context, r.tag.item);
  }
}

void chrome_trace_writer::launch_flow(uint64_t launch, int pid, uint64_t tid,
                                      const std::string& ts) {
  // From the host's slice of the launch (its issue) to this kernel's start:
  // one flow per kernel, since a flow has one end.
  const auto from = launches_.find(launch);
  if (from == launches_.end()) // the launch began before a trace's window
    return;
  const uint64_t id = ++flows_;
  sep();
  fmt::print(out_, R"({{"ph":"s","cat":"launch","id":{},{},"name":"launch {}"}})", id,
             from->second, launch);
  sep();
  fmt::print(out_,
             R"({{"ph":"f","bp":"e","cat":"launch","id":{},"pid":{},"tid":{},"ts":{},"name":"launch {}"}})",
             id, pid, tid, ts, launch);
}

void chrome_trace_writer::receipt(const arrival& a) {
  // An X slice from the head's arrival to the tail's, on the first "in"
  // track of the receiver free by then.
  const trace_record& h = a.hop;
  const node_id n = h.peer;
  const SimTime t = h.arrival, tail = std::max(h.until, h.arrival);
  const int pid = pids_[parent(n)];
  node_slices& ns = slices_[n];
  size_t k = 0;
  while (k < ns.in_free.size() && ns.in_free[k] > t)
    ++k;
  if (k == ns.in_free.size()) {
    if (k == tids_per_node - in_base)
      throw std::runtime_error(
        fmt::format("trace: {} takes in more than {} messages at once", name_of(n), k));
    ns.in_free.push_back(t);
  }
  ns.in_free[k] = tail;
  const uint64_t tid = track(n, in_base + k);
  threads_.try_emplace({pid, tid}, k == 0 ? std::string("in") : fmt::format("in {}", k + 1));
  if (ns.in_t != t)
    ns.ins.clear();
  ns.in_t = t;
  add_span(ns, {t, tail, tid}, t);

  const std::string kind = kind_name(h.tag.what);
  const std::string ts = ps_to_us(t);
  sep();
  fmt::print(out_,
             R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":"{} from {}","args":{{"from":"{}","sent_us":{},"tail_us":{},"arg0":{},"arg1":{},"bytes":{}}}}})",
             pid, tid, ts, ps_to_us(tail - t), kind, short_name(h.node), name_of(h.node),
             ps_to_us(h.t), ps_to_us(tail), h.tag.context, h.tag.item, h.tag.bytes);
  if (cut_.counters) {
    if (h.tag.bytes > 0 && a.link != no_counter)
      counters_.later(a.link, tail, -static_cast<int64_t>(h.tag.bytes));
    if (h.tag.what == static_cast<uint16_t>(engine_kind::credit)) {
      // A credit back at the sender of queue arg0: one more to spend.
      counters_.step(credit_counter(pid, n, h.node, static_cast<uint16_t>(h.tag.context)), t, 1,
                     out_, first_);
    } else if (h.tag.lane > 0) {
      // A message into a bounded queue: one more waiting there.
      counters_.step(queue_counter(pid, n, static_cast<uint16_t>(h.tag.lane - 1)), t, 1, out_,
                     first_);
    }
  }
  // A step of its flow, bound to this slice (its start, for a message
  // sent before a trace's window); the flow goes on from here if the node
  // forwards or answers it, or passes its token on.
  chain flow = a.flow;
  flow.step = false;
  if (flow.id == 0) // its flow starts here if the node passes it on
    flow = {0, kind, false, fmt::format(R"("pid":{},"tid":{},"ts":{})", pid, tid, ts)};
  else {
    sep();
    fmt::print(out_,
               R"({{"ph":"t","cat":"msg","id":{},"pid":{},"tid":{},"ts":{},"name":"{}"}})",
               flow.id, pid, tid, ts, flow.name);
  }
  if (kind == "tile_token")
    ns.tokens[{h.tag.context, h.tag.item}] = flow;
  ns.ins.push_back({h, tid, std::move(flow)});
}

size_t chrome_trace_writer::queue_counter(int pid, node_id n, uint16_t queue) {
  return counters_.find(pid, fmt::format("{}/{} queue", short_name(n), queue_name(queue)),
                        "messages", /*floor=*/true);
}

size_t chrome_trace_writer::credit_counter(int pid, node_id sender, node_id receiver,
                                           uint16_t queue) {
  return counters_.find(pid,
                        fmt::format("{}/credits for {}/{}", short_name(sender),
                                    peer_label(sender, receiver), queue_name(queue)),
                        "credits", /*floor=*/false, /*known=*/false);
}

std::string_view chrome_trace_writer::sip_of(node_id n) const {
  const std::string& name = name_of(n);
  return std::string_view(name).substr(0, name.find('.'));
}

int chrome_trace_writer::link_pid(node_id a, node_id b) {
  const std::string name = fmt::format("link {} <-> {}", name_of(std::min(a, b)), name_of(std::max(a, b)));
  auto [it, made] = pids_.try_emplace(name, 0);
  if (made) { // after the nodes' processes, in the order first used
    it->second = static_cast<int>(pids_.size());
    sep();
    fmt::print(out_, R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"{}"}}}})",
               it->second, name);
    sep();
    fmt::print(out_,
               R"({{"ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}}}})",
               it->second, it->second);
  }
  return it->second;
}

std::string chrome_trace_writer::peer_label(node_id n, node_id peer) const {
  return parent(peer) == parent(n) ? short_name(peer) : name_of(peer);
}

void chrome_trace_writer::service(int pid, const trace_record& r) {
  // An X slice of the span, on the node's serve track for its lane.
  const uint64_t tid = track(r.node, serve_base + r.tag.lane);
  threads_.try_emplace({pid, tid}, r.tag.lane == 0 ? std::string("serve")
                                                   : fmt::format("serve {}", r.tag.lane));
  add_span(slices_[r.node], {r.arrival, r.until, tid}, r.t);
  // Requests waiting or in service: one from its arrival (now) to the end
  // of its span.
  if (cut_.counters) {
    const size_t queue = counters_.find(
      pid, fmt::format("{}/{} queue", short_name(r.node), threads_[{pid, tid}]), "requests");
    counters_.step(queue, r.t, 1, out_, first_);
    counters_.later(queue, r.until, -1);
  }
  sep();
  fmt::print(out_,
             R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":"{} {} B","args":{{"requester":"{}","address":"0x{:x}","bytes":{}}}}})",
             pid, tid, ps_to_us(r.arrival), ps_to_us(r.until - r.arrival), kind_name(r.tag.what),
             r.tag.bytes, name_of(static_cast<node_id>(r.tag.context)), r.tag.item, r.tag.bytes);
}

chrome_trace_writer::in_now* chrome_trace_writer::handled(node_slices& ns,
                                                          const trace_record& r) {
  if (ns.ins.empty() || ns.in_t != r.t)
    return nullptr;
  const std::string kind = kind_name(r.tag.what);
  for (in_now& in : ns.ins)
    if (in.flow.live() && in.r.tag.item == r.tag.item && in.r.tag.context == r.tag.context) {
      const std::string got = kind_name(in.r.tag.what);
      if (got == kind || (got == "mem_read" && kind == "mem_data") ||
          (got == "mem_write" && kind == "mem_ack"))
        return &in;
    }
  return &ns.ins.back();
}

chrome_trace_writer::chain chrome_trace_writer::continued(node_slices& ns, const trace_record& r,
                                                          in_now* in, bool from_receipt) {
  const std::string kind = kind_name(r.tag.what);
  // Forwarded (the same message on) or answered (a read's data, a write's
  // ack) while its receipt is handled.
  if (from_receipt && in->flow.live() && in->r.tag.item == r.tag.item &&
      in->r.tag.context == r.tag.context) {
    const std::string got = kind_name(in->r.tag.what);
    if (got == kind || (got == "mem_read" && kind == "mem_data") ||
        (got == "mem_write" && kind == "mem_ack")) {
      chain c = std::move(in->flow);
      in->flow = {};
      ns.tokens.erase({r.tag.context, r.tag.item}); // a token forwarded as it came
      return c;
    }
  }
  // A tile token passed on, or its tile done, by a unit it came to.
  if (kind == "tile_token" || kind == "tile_done") {
    auto it = ns.tokens.find({r.tag.context, r.tag.item});
    if (it != ns.tokens.end()) {
      chain c = std::move(it->second);
      ns.tokens.erase(it);
      // Its flow goes on from the slice it is sent from (a step there),
      // unless that is the receipt it came in by.
      const bool own = from_receipt && in->flow.same(c);
      c.step = !own;
      if (in && in->flow.same(c))
        in->flow = {};
      return c;
    }
  }
  return {};
}

void chrome_trace_writer::add_span(node_slices& ns, span s, SimTime now) {
  // A node's records go forward in time: spans that ended before now hold
  // no later send (so a long conversion keeps only the spans still open).
  std::erase_if(ns.spans, [now](const span& x) { return x.end < now; });
  ns.spans.push_back(s);
}

uint64_t chrome_trace_writer::sender_track(node_id n, SimTime t, const in_now* in) {
  // The message being handled.
  if (in)
    return in->tid;
  node_slices& ns = slices_[n];
  // The stage or call open the latest.
  const lane_state* best = nullptr;
  size_t best_lane = 0;
  for (size_t l = 0; l < ns.lanes.size(); ++l)
    if (ns.lanes[l].open > 0 && (!best || ns.lanes[l].last_begin > best->last_begin)) {
      best = &ns.lanes[l];
      best_lane = l;
    }
  if (best)
    return track(n, best_lane);
  // A receipt or service span around `t` (the node's records go forward in
  // time, so the spans that ended before it are done with).
  std::erase_if(ns.spans, [t](const span& s) { return s.end < t; });
  for (const span& s : ns.spans)
    if (s.begin <= t)
      return s.tid;
  return no_track;
}

void chrome_trace_writer::hop(int pid, const trace_record& r) {
  // A flow from the sender's slice to the receipt, drawn when the records
  // reach the head's arrival; none when the receiver has no track in this
  // trace.
  if (r.peer >= names_.size() || !pids_.count(parent(r.peer)))
    return;
  if (r.t < cut_.from) { // sent before the window: only its receipt is drawn
    arrivals_.push({r, {}, no_counter});
    return;
  }
  const std::string kind = kind_name(r.tag.what);
  node_slices& ns = slices_[r.node];
  in_now* in = handled(ns, r);
  uint64_t tid = sender_track(r.node, r.t, in);
  if (tid == no_track) {
    // The sender is in no slice of this trace (a node outside the
    // selection, or one whose stages --trace-kinds leaves out): the send
    // is a slice of no duration on its first lane's track.
    tid = track(r.node, 0);
    sep();
    fmt::print(out_, R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":0,"name":"send {} to {}"}})", pid,
               tid, ps_to_us(r.t), kind, name_of(r.peer));
  }
  threads_.try_emplace({pid, tid}, std::string());
  chain flow = continued(ns, r, in, in != nullptr);
  if (flow.id == 0 && !flow.start.empty()) {
    // A message that came before the trace's window, passed on: its flow
    // starts at its receipt.
    flow.id = ++flows_;
    sep();
    fmt::print(out_, R"({{"ph":"s","cat":"msg","id":{},{},"name":"{}"}})", flow.id, flow.start,
               flow.name);
    flow.start.clear();
  }
  if (flow.id == 0) { // a new flow starts here
    flow = {++flows_, kind, false, {}};
    sep();
    fmt::print(out_, R"({{"ph":"s","cat":"msg","id":{},"pid":{},"tid":{},"ts":{},"name":"{}"}})",
               flow.id, pid, tid, ps_to_us(r.t), flow.name);
  } else if (flow.step) { // a token goes on from the slice it is sent from
    sep();
    fmt::print(out_, R"({{"ph":"t","cat":"msg","id":{},"pid":{},"tid":{},"ts":{},"name":"{}"}})",
               flow.id, pid, tid, ps_to_us(r.t), flow.name);
  }
  // A link between SIPs has a process of its own; others count in the
  // sender's. Without counter tracks there is neither (nor an empty process).
  const size_t link =
    !cut_.counters ? no_counter
    : sip_of(r.node) != sip_of(r.peer)
      ? counters_.find(link_pid(r.node, r.peer),
                       fmt::format("{} -> {}", name_of(r.node), name_of(r.peer)), "bytes")
      : counters_.find(pid, fmt::format("link {} -> {}", short_name(r.node), name_of(r.peer)),
                       "bytes");
  if (cut_.counters) {
    if (r.tag.bytes > 0)
      counters_.step(link, r.t, static_cast<int64_t>(r.tag.bytes), out_, first_);
    if (r.tag.what == static_cast<uint16_t>(engine_kind::credit)) {
      // Sent as the sender takes a message from its queue arg0.
      counters_.step(queue_counter(pid, r.node, static_cast<uint16_t>(r.tag.context)), r.t, -1,
                     out_, first_);
    } else if (r.tag.lane > 0) {
      // A credit spent: what the sender has left for that queue.
      counters_.set(credit_counter(pid, r.node, r.peer, static_cast<uint16_t>(r.tag.lane - 1)),
                    r.t, r.credits, out_, first_);
    }
  }
  arrivals_.push({r, std::move(flow), link});
}

void chrome_trace_writer::finish() {
  arrivals_until(SimTime::infinity(), no_node);
  flush_ends();
  counters_.flush(cut_.until, out_, first_);
  // Track names last: a lane's name is its stages' (pe_dma/read, as in the
  // summary), known from its first stage, which may come after its first
  // record; `kernel` for the CPUs' kernel slices; `events` for a lane of
  // instants (and sends outside slices) only.
  for (const auto& [trk, lane] : threads_) {
    const auto& [pid, tid] = trk;
    const uint64_t sub = tid % tids_per_node;
    sep();
    fmt::print(out_,
               R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}/{}"}}}})",
               pid, tid, short_name(static_cast<node_id>(tid / tids_per_node)),
               lane.empty() ? (sub == 0 ? std::string("events") : fmt::format("events {}", sub))
                            : lane);
  }
  out_ << "\n]}\n";
}

} // namespace kb
