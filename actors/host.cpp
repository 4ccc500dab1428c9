#include "actors/host.hpp"

#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

const impl_decl<host::config>& host::decl() {
  static const impl_decl<config> d =
    impl_decl<config>{"host",
                      "the host of a program run: issues each kernel launch to the M_CPUs of its "
                      "cubes once the launches it waits for have completed",
                      {param(&config::link_latency, "link_latency_ns",
                             "each link between the host and a cube's M_CPU (launch "
                             "descriptors one way, completions the other)")
                         .init(ns(1000))}}
      .reports(program_stats::all);
  return d;
}

host::config host::read_config(const param_reader& p, const machine_context& ctx) {
  config c = decl().read(p);
  c.plan = ctx.launches;
  return c;
}

host::host(caf::actor_config& cfg, node_init init, config c)
  : node(cfg, std::move(init)), cfg_(std::move(c)) {}

void host::on_start() {
  if (!cfg_.plan)
    return;
  launches_.resize(cfg_.plan->launches.size());
  for (size_t i = 0; i < launches_.size(); ++i)
    for (const std::string& m : cfg_.plan->launches[i].m_cpus) {
      const auto l = find_link(m);
      if (!l)
        throw std::runtime_error(fmt::format("{}: launch {} ({}) goes to {}, but the host has no "
                                             "link to it",
                                             node_name(), i, cfg_.plan->launches[i].kernel, m));
      launches_[i].links.push_back(*l);
    }
  issue_ready(UINT32_MAX);
}

void host::issue_ready(uint32_t by) {
  while (next_ < launches_.size() && launches_[next_].issued)
    ++next_;
  for (size_t i = next_; i < launches_.size(); ++i) {
    state& s = launches_[i];
    if (s.issued)
      continue;
    bool ready = true;
    for (const uint32_t a : cfg_.plan->launches[i].after)
      ready = ready && launches_.at(a).done;
    if (!ready)
      continue;
    s.issued = true;
    s.issue_ps = now().ps();
    s.decided_by = by == UINT32_MAX ? 0 : by + 1;
    s.waiting = static_cast<uint32_t>(s.links.size());
    // A slice from its issue to its completion, on a track of its own
    // while it is in flight (launches overlap).
    const auto free = std::find(tracks_.begin(), tracks_.end(), 0);
    s.track = static_cast<uint16_t>(free - tracks_.begin());
    if (free == tracks_.end())
      tracks_.push_back(1);
    else
      *free = 1;
    hook_event(trace_kind::call_start, {s.track, launch_slice, 0, i, 0});
    for (const uint32_t l : s.links) {
      outgoing m;
      m.kind = kind_of(pipe_kind::launch);
      m.bytes = launch_bytes;
      m.arg0 = i;
      send_on(l, std::move(m));
    }
  }
}

void host::on_message(sim_event& ev) {
  if (ev.kind != kind_of(pipe_kind::kernel_done) || !cfg_.plan) {
    const auto back = find_link_to(ev.src);
    throw std::runtime_error(fmt::format("unexpected message kind {} from {} (the host takes "
                                         "launch completions from M_CPUs only)",
                                         ev.kind,
                                         back ? link_name(*back) : fmt::format("node {}", ev.src)));
  }
  const uint64_t i = ev.arg0;
  if (i >= launches_.size() || !launches_[i].issued || launches_[i].waiting == 0)
    throw std::runtime_error(fmt::format("{}: a completion of launch {}, which {}", node_name(), i,
                                         i >= launches_.size()     ? "the program does not have"
                                         : !launches_[i].issued    ? "was not issued"
                                                                   : "completed before"));
  state& s = launches_[i];
  if (--s.waiting > 0)
    return;
  s.done = true;
  s.done_ps = now().ps();
  hook_event(trace_kind::call_end, {s.track, launch_slice, 0, i, 0});
  // The launches it lets go take other tracks: a slice that begins in the
  // picosecond another ends never shares its track (in-order readers would
  // see the new one begin inside the old).
  issue_ready(static_cast<uint32_t>(i));
  tracks_[s.track] = 0;
}

void host::on_finish() {
  for (size_t i = 0; i < launches_.size(); ++i) {
    const state& s = launches_[i];
    const std::string n = std::to_string(i);
    add_figure(program_stats::issue_ps, n, s.issued ? s.issue_ps : 0);
    add_figure(program_stats::done_ps, n, s.done ? s.done_ps : 0);
    add_figure(program_stats::decided_by, n, s.decided_by);
  }
}

std::string host::pending_work() const {
  std::string out = node::pending_work();
  for (size_t i = 0; i < launches_.size(); ++i)
    if (!launches_[i].done)
      out += fmt::format("{}launch {} ({}) {}", out.empty() ? "" : "; ", i,
                         cfg_.plan->launches[i].kernel,
                         launches_[i].issued ? "has not completed" : "was never issued");
  return out;
}

} // namespace kb
