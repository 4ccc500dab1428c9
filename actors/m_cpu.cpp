#include "actors/m_cpu.hpp"

#include "actors/detail/names.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/pipeline/pe_program.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

namespace {

constexpr uint16_t host_timer = kind_of(pipe_kind::timer);

} // namespace

const impl_decl<m_cpu::config>& m_cpu::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "m_cpu",
    "receives the host's kernel launch, fans it out to its cube's PE_CPUs over the NOC and "
    "returns their completions to the host",
    {param(&config::host_latency, "host_latency_ns",
           "the host's link: a launch reaches the M_CPU, and the last completion the host, "
           "this long after")
       .init(SimTime::zero())}}
      .reports(launch_stats::all);
  return d;
}

m_cpu::config m_cpu::read_config(const param_reader& p, const machine_context& ctx) {
  config c = decl().read(p);
  // The programs are by PE name; a PE's number is its PE_CPU's place.
  const std::string cube = detail::parent_of(ctx.node) + ".";
  // The map is sorted: this cube's PEs are one run of it (not a scan of
  // every PE's program for every cube: 256 cubes x 16,384 PEs; issue 31).
  if (ctx.programs && ctx.topology)
    for (auto it = ctx.programs->lower_bound(cube);
         it != ctx.programs->end() && it->first.starts_with(cube); ++it) {
      const auto& [prefix, program] = *it;
      if (!program)
        continue;
      const node_spec* cpu = ctx.topology->find_node(prefix + ".pe_cpu");
      if (cpu && cpu->place.pe && cpu->place.sip == ctx.place.sip &&
          cpu->place.cube == ctx.place.cube) {
        c.pes.push_back(*cpu->place.pe);
        for (const auto& [launch, part] : program->launches) {
          if (c.launch_pes.size() <= launch)
            c.launch_pes.resize(launch + 1);
          c.launch_pes[launch].push_back(*cpu->place.pe);
        }
      }
    }
  std::sort(c.pes.begin(), c.pes.end());
  for (auto& pes : c.launch_pes)
    std::sort(pes.begin(), pes.end());
  c.program = ctx.launches != nullptr;
  return c;
}

m_cpu::m_cpu(caf::actor_config& cfg, node_init init, config c)
  : node(cfg, std::move(init)), cfg_(std::move(c)), done_(cfg_.pes.size(), 0) {}

void m_cpu::on_start() {
  if (cfg_.program) { // launches come from the host
    host_ = find_link("host");
    launch_left_.assign(cfg_.launch_pes.size(), 0);
    launch_arrived_.assign(cfg_.launch_pes.size(), 0);
    return;
  }
  if (cfg_.pes.empty())
    return;
  if (cfg_.host_latency > SimTime::zero())
    schedule(cfg_.host_latency, host_timer);
  else
    fan_out();
}

void m_cpu::fan_out() {
  // A trace slice from the launch to the last completion: the kernel on
  // this cube, as its M_CPU sees it.
  hook_event(trace_kind::call_start, {0, kernel_slice, 0, 0, 0});
  const uint32_t noc = port_link(0, ports()[0].to);
  for (uint32_t pe : cfg_.pes) {
    outgoing m;
    m.kind = kind_of(pipe_kind::launch);
    m.bytes = launch_bytes;
    m.arg0 = pe;
    send_on(noc, std::move(m));
  }
}

void m_cpu::fan_out_launch(uint64_t l) {
  if (l >= cfg_.launch_pes.size() || cfg_.launch_pes[l].empty() || launch_arrived_[l])
    throw std::runtime_error(fmt::format("{}: launch {} from the host, which {}", node_name(), l,
                                         l < launch_arrived_.size() && launch_arrived_[l]
                                           ? "arrived before"
                                           : "runs on none of this cube's PEs"));
  launch_arrived_[l] = 1;
  first_launch_ = std::min(first_launch_, now());
  launch_left_[l] = static_cast<uint32_t>(cfg_.launch_pes[l].size());
  const uint32_t noc = port_link(0, ports()[0].to);
  for (uint32_t pe : cfg_.launch_pes[l]) {
    outgoing m;
    m.kind = kind_of(pipe_kind::launch);
    m.bytes = launch_bytes;
    m.arg0 = pe;
    m.arg1 = l;
    send_on(noc, std::move(m));
    ++launches_;
  }
}

void m_cpu::launch_done(uint32_t pe, uint64_t l) {
  const bool known = l < cfg_.launch_pes.size() &&
                     std::find(cfg_.launch_pes[l].begin(), cfg_.launch_pes[l].end(), pe) !=
                       cfg_.launch_pes[l].end();
  if (!known || !launch_arrived_[l] || launch_left_[l] == 0)
    throw std::runtime_error(fmt::format(
      "a completion of launch {} from pe{}, which was not launched or completed before", l, pe));
  ++completed_;
  last_done_ = now();
  if (--launch_left_[l] > 0)
    return;
  if (!host_)
    throw std::runtime_error(fmt::format("{}: no link to the host for launch {}'s completion",
                                         node_name(), l));
  outgoing m;
  m.kind = kind_of(pipe_kind::kernel_done);
  m.bytes = launch_bytes;
  m.arg0 = l;
  send_on(*host_, std::move(m));
}

void m_cpu::on_message(sim_event& ev) {
  if (ev.kind == host_timer) {
    fan_out();
    return;
  }
  if (cfg_.program && ev.kind == kind_of(pipe_kind::launch) && host_ &&
      find_link_to(ev.src) == host_) {
    fan_out_launch(ev.arg0);
    return;
  }
  if (cfg_.program && ev.kind == kind_of(pipe_kind::kernel_done)) {
    launch_done(static_cast<uint32_t>(ev.arg0), ev.arg1);
    return;
  }
  if (ev.kind != kind_of(pipe_kind::kernel_done)) {
    const auto back = find_link_to(ev.src);
    throw std::runtime_error(fmt::format("unexpected message kind {} from {} (an M_CPU takes "
                                         "kernel completions only)",
                                         ev.kind,
                                         back ? link_name(*back) : fmt::format("node {}", ev.src)));
  }
  const auto it = std::find(cfg_.pes.begin(), cfg_.pes.end(), ev.arg0);
  if (it == cfg_.pes.end() || done_[it - cfg_.pes.begin()])
    throw std::runtime_error(
      fmt::format("a completion from pe{}, which was not launched or completed before", ev.arg0));
  done_[it - cfg_.pes.begin()] = 1;
  ++completed_;
  last_done_ = now();
  if (completed_ == cfg_.pes.size())
    hook_event(trace_kind::call_end, {0, kernel_slice, 0, 0, 0});
}

void m_cpu::on_finish() {
  if (cfg_.program) {
    if (launches_ == 0)
      return;
    add_figure(launch_stats::kernels, launches_);
    add_figure(launch_stats::kernels_done, completed_);
    add_figure(launch_stats::launch_ps, first_launch_.ps());
    if (completed_ == launches_ && host_)
      add_figure(launch_stats::done_ps, (last_done_ + link_latency(*host_)).ps());
    return;
  }
  if (cfg_.pes.empty())
    return;
  add_figure(launch_stats::kernels, cfg_.pes.size());
  add_figure(launch_stats::kernels_done, completed_);
  add_figure(launch_stats::launch_ps, cfg_.host_latency.ps());
  if (completed_ == cfg_.pes.size())
    add_figure(launch_stats::done_ps, (last_done_ + cfg_.host_latency).ps());
}

std::string m_cpu::pending_work() const {
  std::string out = node::pending_work();
  if (cfg_.program) {
    for (size_t l = 0; l < launch_left_.size(); ++l)
      if (launch_left_[l] > 0)
        out += fmt::format("{}launch {}: {} of its PEs here have not completed",
                           out.empty() ? "" : "; ", l, launch_left_[l]);
    return out;
  }
  if (completed_ < cfg_.pes.size())
    out += fmt::format("{}{} of {} launched kernels have not completed", out.empty() ? "" : "; ",
                       cfg_.pes.size() - completed_, cfg_.pes.size());
  return out;
}

} // namespace kb
