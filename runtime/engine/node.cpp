#include "runtime/engine/node.hpp"

#include "runtime/engine/link_stats.hpp"

#include "runtime/exception_text.hpp"

#include "runtime/engine/node_sink.hpp"

#include "runtime/engine/shard_loop.hpp"
#include "runtime/engine/stall_watchdog.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace kb {

node::node(caf::actor_config& cfg, node_init init)
  : caf::event_based_actor(cfg),
    id_(init.id),
    trace_hops_(init.rec && init.rec->wants_hops()),
    trace_services_(init.rec && init.rec->wants_services()),
    rec_(std::move(init.rec)),
    name_(std::move(init.name)),
    place_(init.place),
    port_links_(std::move(init.port_links)),
    names_(std::move(init.names)),
    named_links_(static_cast<uint32_t>(init.out_links.size())),
    in_links_(std::move(init.in_links)),
    sink_(std::move(init.sink)) {
  const auto has_state = [](const link_spec_rt& l) { return l.bw || l.depth > 0; };
  const auto stateful =
    static_cast<size_t>(std::count_if(init.out_links.begin(), init.out_links.end(), has_state));
  stateful_.reserve(stateful); // exactly: a node's links are most of its heap
  stateful_link_.reserve(stateful);
  routes_.reserve(init.out_links.size() + init.out_runs.size());
  for (const auto& l : init.out_links) {
    uint16_t state = no_state;
    if (has_state(l)) {
      if (stateful_.size() >= no_state)
        throw std::invalid_argument(fmt::format(
          "{}: more than {} links with bandwidth or credits", name_, no_state));
      state = static_cast<uint16_t>(stateful_.size());
      stateful_.emplace_back(l);
      stateful_link_.push_back(routes_.size());
    }
    routes_.add({l.dst, latency_index(l.latency), state});
  }
  for (const auto& r : init.out_runs)
    routes_.add_run(r.first_dst, r.count, latency_index(r.latency));
  std::sort(in_links_.begin(), in_links_.end(),
            [](const in_link_info& a, const in_link_info& b) {
              return std::tie(a.src, a.link) < std::tie(b.src, b.link);
            });
}

node::~node() = default;

uint16_t node::latency_index(SimTime latency) {
  auto lat = std::find(latencies_.begin(), latencies_.end(), latency);
  if (lat == latencies_.end()) {
    if (latencies_.size() >= 0xffff)
      throw std::invalid_argument(fmt::format("{}: too many distinct link latencies", name_));
    lat = latencies_.insert(latencies_.end(), latency);
  }
  return static_cast<uint16_t>(lat - latencies_.begin());
}

const std::string& node::link_name(uint32_t l) const {
  static const std::string unnamed;
  return l < named_links_ && names_ ? (*names_)[routes_.at(l).dst] : unnamed;
}

node_summary node::summarize() {
  on_finish();
  node_summary s;
  s.node = id_;
  s.name = name_;
  s.stats = stats_;
  // Only links with bandwidth or credits count traffic (a link class
  // has none, and may hold a link per other node: not scanned).
  const auto used = static_cast<size_t>(std::count_if(
    stateful_.begin(), stateful_.end(), [](const out_link& lk) { return lk.messages() > 0; }));
  s.figures.reserve(figures_.size() + 3 * used); // exactly: a million figures at 16,384 PEs
  std::move(figures_.begin(), figures_.end(), std::back_inserter(s.figures));
  std::vector<figure>().swap(figures_);
  s.tables = std::move(tables_);
  s.pending = pending_work();
  for (size_t state = 0; state < stateful_.size(); ++state) {
    const uint32_t l = stateful_link_[state];
    const out_link& lk = stateful_[state];
    if (lk.messages() == 0)
      continue;
    const std::string_view dst = intern_text(link_name(l));
    s.figures.push_back({link_stats::bytes.pattern, lk.bytes(), link_stats::bytes.id, dst});
    s.figures.push_back(
      {link_stats::messages.pattern, lk.messages(), link_stats::messages.id, dst});
    s.figures.push_back(
      {link_stats::busy_ps.pattern, lk.busy_ps(), link_stats::busy_ps.id, dst});
  }
  if (rec_) {
    s.records = rec_->take_records();
    if (auto t = rec_->take_table())
      s.tables.push_back(std::move(t));
  }
  if (sink_)
    s.ops = sink_->take_shipped(name_);
  return s;
}

caf::behavior node::make_behavior() {
  return {
    [this](event_batch& b) { on_advance(b); },
    [this](finish_atom) -> node_summary { return summarize(); },
  };
}

void node::on_exit() {
  hub_ = nullptr;
}

// -- protocol ----------------------------------------------------------------

void node::on_advance(event_batch& b) {
  if (!hub_)
    hub_ = caf::actor_cast<caf::actor>(current_sender());
  window_end_ = b.time;
  ++stats_.activations;
  for (auto& e : b.events)
    queue_.push(std::move(e));
  // The delivered batch's storage becomes the outbox (empty: the last one
  // left with the last report), and travels back to the hub with the report.
  b.events.clear();
  outbox_.swap(b.events);
  event_batch report;
  report.kind = batch_kind::report;
  report.node = id_;
  try {
    if (!started_) {
      started_ = true;
      on_start();
    }
    run_until(window_end_);
  } catch (...) { // anything a handler throws, a kernel's `throw 42;` too
    report.error = fmt::format("{} at t={} ps: {}", name_, now_.ps(), current_exception_text());
  }
  note_progress(1 + report.events.size());
  report.time = queue_.empty() ? SimTime::infinity() : queue_.top_time();
  report.events.swap(outbox_);
  post(this, hub_, std::move(report));
}

void node::direct_start() {
  started_ = true;
  on_start();
}

void node::direct_handle(sim_event& ev) {
  // Anything sent now arrives at now + latency >= now + 1 ps.
  window_end_ = ev.t + ps(1);
  dispatch(ev);
}

SimTime node::min_link_latency() const {
  SimTime m = SimTime::infinity();
  for (SimTime l : latencies_)
    m = std::min(m, l);
  return m;
}

void node::run_until(SimTime end) {
  while (!queue_.empty() && queue_.top_time() < end) {
    sim_event ev = queue_.pop();
    dispatch(ev);
  }
}

void node::dispatch(sim_event& ev) {
  now_ = ev.t;
  ++stats_.events;
  stats_.last_event_ps = now_.ps();
  if (rec_ && stats_.events % recorder::progress_batch == 0)
    rec_->events(recorder::progress_batch, now_);
  if (ev.kind == static_cast<uint16_t>(engine_kind::credit)) {
    on_credit(ev);
    return;
  }
  if (ev.queue != no_queue && ev.src != id_) {
    const queue_id q = ev.queue;
    if (queues_.size() <= q)
      queues_.resize(q + 1u);
    queues_[q].push_back(std::move(ev));
    on_queue_arrival(q);
    return;
  }
  on_message(ev);
}

// -- sending -----------------------------------------------------------------

std::optional<uint32_t> node::find_link(std::string_view dst_name) const {
  for (uint32_t i = 0; i < named_links_; ++i)
    if (link_name(i) == dst_name)
      return i;
  return std::nullopt;
}

std::optional<uint32_t> node::find_link_to(node_id dst) const {
  return routes_.find(dst);
}

uint32_t node::link_to(std::string_view dst_name) const {
  if (auto l = find_link(dst_name))
    return *l;
  throw std::runtime_error(
    fmt::format("{} has no link to '{}'", name_, dst_name));
}

uint32_t node::port_link(size_t i, std::string_view to) const {
  if (i < port_links_.size())
    return port_links_[i];
  const auto dot = name_.rfind('.');
  return link_to(dot == std::string::npos ? std::string(to)
                                          : name_.substr(0, dot + 1).append(to));
}

bool node::send_on(uint32_t l, outgoing&& m) {
  if (l >= routes_.size())
    throw std::logic_error(fmt::format("{}: no output link #{}", name_, l));
  const route_table::route r = routes_.at(l);
  const SimTime h = std::max(m.head.value_or(now_), now_);
  const SimTime tau = std::max(m.tail.value_or(h), h);
  sim_event ev;
  ev.dst = r.dst;
  ev.queue = m.queue;
  ev.kind = m.kind;
  ev.link = l;
  ev.bytes = m.bytes;
  ev.arg0 = m.arg0;
  ev.arg1 = m.arg1;
  ev.body = std::move(m.body);
  if (r.state == no_state) { // pure wire: no credits, no serialisation
    const SimTime lat = latencies_[r.latency];
    ev.set_key(h + lat, id_, seq_++);
    ev.tail = tau + lat;
    push_out(std::move(ev));
    return true;
  }
  out_link& lk = stateful_[r.state];
  if (m.queue != no_queue && lk.bounded()) {
    auto& held = lk.held(m.queue);
    if (!held.empty() || !lk.has_credit(m.queue)) {
      ev.t = h;
      ev.tail = tau;
      held.push_back(std::move(ev));
      return false;
    }
    lk.spend(m.queue);
  }
  emit(l, std::move(ev), h, tau);
  return true;
}

void node::emit(uint32_t l, sim_event&& ev, SimTime h, SimTime tau) {
  out_link& lk = stateful_[routes_.at(l).state];
  const crossing c = lk.cross(h, tau, ev.bytes);
  ev.set_key(c.head, id_, seq_++);
  ev.tail = c.tail;
  push_out(std::move(ev));
}

void node::push_out(sim_event&& ev) {
  if (ev.t < window_end_)
    throw std::logic_error(fmt::format(
      "{}: message to node {} arrives at {} ps, inside the current window "
      "(ends {} ps): link latency below the lookahead",
      name_, ev.dst, ev.t.ps(), window_end_.ps()));
  ++stats_.messages_sent;
  if (trace_hops_)
    note_hop(ev);
  if (loop_)
    loop_->deliver(std::move(ev));
  else
    outbox_.push_back(std::move(ev));
}

void node::note_hop(const sim_event& ev) {
  message_note m{now_, id_, ev.dst, ev.t, ev.tail, ev.seq};
  // A credit names its receiver's link, not one of ours.
  if (ev.queue != no_queue && ev.kind != static_cast<uint16_t>(engine_kind::credit)) {
    const route_table::route r = routes_.at(ev.link);
    if (r.state != no_state && stateful_[r.state].bounded()) {
      m.queue = static_cast<uint16_t>(ev.queue + 1u);
      m.credits = stateful_[r.state].credits(ev.queue);
    }
  }
  rec_->message(m, {0, ev.kind, ev.arg1, ev.arg0, ev.bytes});
}

void node::schedule(SimTime t, uint16_t kind, uint64_t arg0, uint64_t arg1,
                    message_body body) {
  if (t < now_)
    throw std::logic_error(fmt::format("{}: timer at {} ps is in the past "
                                       "(now {} ps)",
                                       name_, t.ps(), now_.ps()));
  sim_event ev;
  ev.set_key(t, id_, seq_++);
  ev.tail = t;
  ev.dst = id_;
  ev.kind = kind;
  ev.arg0 = arg0;
  ev.arg1 = arg1;
  ev.body = std::move(body);
  if (loop_)
    loop_->push(std::move(ev));
  else
    queue_.push(std::move(ev));
}

void node::on_credit(const sim_event& ev) {
  if (ev.link >= routes_.size() || routes_.at(ev.link).state == no_state)
    throw std::logic_error(fmt::format("{}: credit for link #{}, which has "
                                       "no credits", name_, ev.link));
  out_link& lk = stateful_[routes_.at(ev.link).state];
  const auto q = static_cast<queue_id>(ev.arg0);
  lk.refund(q);
  auto& held = lk.held(q);
  if (held.empty())
    return;
  sim_event next = std::move(held.front());
  held.pop_front();
  lk.spend(q);
  const SimTime h = std::max(next.t, now_);
  const SimTime tau = std::max(next.tail, h);
  emit(ev.link, std::move(next), h, tau);
  on_unblocked(ev.link, q);
}

// -- input queues --------------------------------------------------------------

bool node::queue_empty(queue_id q) const {
  return q >= queues_.size() || queues_[q].empty();
}

size_t node::queue_size(queue_id q) const {
  return q >= queues_.size() ? 0 : queues_[q].size();
}

const in_link_info* node::in_link(node_id src, uint32_t l) const {
  // Most takes are from the sender of the one before.
  if (last_in_ && last_in_->src == src && last_in_->link == l)
    return last_in_;
  // Null for a link of a link class (pure wires: no credits to return).
  auto it = std::lower_bound(in_links_.begin(), in_links_.end(),
                             std::make_pair(src, l),
                             [](const in_link_info& a, std::pair<node_id, uint32_t> b) {
                               return std::tie(a.src, a.link) < std::tie(b.first, b.second);
                             });
  if (it == in_links_.end() || it->src != src || it->link != l)
    return nullptr;
  return last_in_ = &*it;
}

sim_event node::take(queue_id q) {
  if (queue_empty(q))
    throw std::logic_error(fmt::format("{}: take from empty queue {}", name_, q));
  sim_event ev = std::move(queues_[q].front());
  queues_[q].pop_front();
  const in_link_info* in = in_link(ev.src, ev.link);
  if (in && in->bounded) {
    sim_event credit;
    credit.set_key(now_ + in->latency, id_, seq_++);
    credit.tail = credit.t;
    credit.dst = in->src;
    credit.kind = static_cast<uint16_t>(engine_kind::credit);
    credit.link = in->link;
    credit.arg0 = q;
    push_out(std::move(credit));
  }
  return ev;
}

// -- hooks -------------------------------------------------------------------

void node::hook_service_start(const service_tag& tag) {
  if (trace_services_)
    rec_->record(trace_kind::engine_start, now_, id_, tag);
}

void node::hook_service_end(const service_tag& tag) {
  if (trace_services_)
    rec_->record(trace_kind::engine_complete, now_, id_, tag);
}

void node::hook_event(trace_kind kind, const service_tag& tag) {
  if (rec_)
    rec_->record(kind, now_, id_, tag);
}

void node::hook_service_span(SimTime begin, SimTime end, const service_tag& tag) {
  if (trace_services_)
    rec_->service(now_, id_, std::max(begin, now_), std::max(end, std::max(begin, now_)), tag);
}

void node::add_figure(const stat_decl& s, uint64_t value) {
  if (s.qualified())
    throw std::logic_error(fmt::format("{}: statistic '{}' needs a qualifier", name_, s.pattern));
  figures_.push_back({s.pattern, value, s.id, {}});
}

void node::add_figure(const stat_decl& s, std::string_view q, uint64_t value) {
  if (!s.qualified())
    throw std::logic_error(
      fmt::format("{}: statistic '{}' takes no qualifier ('{}')", name_, s.pattern, q));
  figures_.push_back({s.pattern, value, s.id, intern_text(q)});
}

void node::add_table(std::shared_ptr<const summary_table> t) {
  if (t)
    tables_.push_back(std::move(t));
}

std::string node::pending_work() const {
  size_t queued = 0;
  for (const auto& q : queues_)
    queued += q.size();
  size_t held = 0;
  for (const auto& l : stateful_)
    held += l.any_held() ? 1 : 0;
  if (queued == 0 && held == 0)
    return {};
  return fmt::format("{} queued message(s), {} link(s) holding messages for "
                     "lack of credit",
                     queued, held);
}

} // namespace kb
