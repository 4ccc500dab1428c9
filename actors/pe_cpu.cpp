#include "actors/pe_cpu.hpp"

#include "actors/detail/names.hpp"
#include "actors/pe_tcm.hpp"
#include "messages/memory.capnp.h"
#include "messages/pipeline.capnp.h"
#include "runtime/address.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/exception_text.hpp"
#include "runtime/pipeline/pe_program.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace kb {

const impl_decl<pe_cpu::config>& pe_cpu::decl() {
  static const impl_decl<config> d = impl_decl<config>{"pe_cpu",
                                   "runs the PE's kernel (a tl:: kernel on a fiber, or the "
                                   "built-in driver's commands) and submits its commands to "
                                   "PE_SCHEDULER"}
      .reports(kernel_stats::all);
  return d;
}

pe_cpu::config pe_cpu::read_config(const param_reader&, const machine_context& ctx) {
  config c;
  const std::string prefix = ctx.node.substr(0, ctx.node.rfind('.'));
  if (ctx.programs)
    if (auto it = ctx.programs->find(prefix); it != ctx.programs->end())
      c.program = it->second;
  c.fabric = ctx.fabric;
  c.topology = ctx.topology;
  if (c.program && ctx.topology) {
    const node_spec* m = ctx.topology->find_node(detail::parent_of(prefix) + ".m_cpu");
    c.launched = m && m->kind == "m_cpu";
  }
  if (ctx.topology)
    if (const node_spec* tcm = ctx.topology->find_node(prefix + ".pe_tcm")) {
      const pe_tcm::config t = pe_tcm::decl().read(tcm->params);
      c.tcm_bytes = t.size_kib * 1024;
      c.tcm_reserved = t.scheduler_reserved_kib * 1024;
    }
  return c;
}

pe_cpu::pe_cpu(caf::actor_config& cfg, node_init init, config c)
  : node(cfg, std::move(init)), cfg_(std::move(c)), current_(cfg_.program.get()) {}

pe_cpu::~pe_cpu() {
  // A kernel still suspended (the run failed elsewhere) unwinds now, while
  // what its tensors' release asks of this port (commands_) still exists.
  kernel_.reset();
}

template <class F>
void pe_cpu::step(F&& f) {
  // In a host program, which launch the kernel runs for (errors only).
  const auto launch = [this] {
    return cfg_.program->launches.empty()
             ? std::string()
             : fmt::format(" (launch {} of program {})", launch_, cfg_.program->kernel);
  };
  try {
    f();
  } catch (const tl::kernel_error& e) {
    if (cfg_.program->launches.empty())
      throw;
    throw tl::kernel_error(fmt::format("{}{}", e.what(), launch()));
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("kernel {}{} on {} ({}) failed: {}", current_->kernel,
                                         launch(), node_name(), kernel_->program_text(),
                                         e.what()));
  } catch (...) { // not a std::exception: `throw 42;`, `throw "no";`
    throw std::runtime_error(fmt::format("kernel {}{} on {} ({}) failed: it threw {}",
                                         current_->kernel, launch(), node_name(),
                                         kernel_->program_text(), current_exception_text()));
  }
  if (kernel_->finished() && !finished_) {
    finished_ = true;
    last_step_by_ = resumed_by_;
    finished_ps_ = now().ps();
    tcm_peak_ = std::max(tcm_peak_, kernel_->tcm().peak_used());
    hook_event(trace_kind::call_end, {0, kernel_slice, 0, 0, 0});
    if (cfg_.launched) { // the completion goes back to the M_CPU
      if (!cfg_.program->launches.empty()) // a program's launch (not a one-kernel run)
        ended_.push_back({launch_, finished_ps_, last_step_by_});
      outgoing m;
      m.kind = kind_of(pipe_kind::kernel_done);
      m.bytes = launch_bytes;
      m.arg0 = pe_index_;
      m.arg1 = launch_;
      if (!noc_)
        throw std::runtime_error(
          fmt::format("{}: no link to its cube's NOC for the kernel's completion", node_name()));
      send_on(*noc_, std::move(m));
    }
    if (!cfg_.program->launches.empty()) {
      ++launches_done_;
      start_next_launch();
    }
  }
}

void pe_cpu::launch_arrived(uint64_t l) {
  const auto& all = cfg_.program->launches;
  const auto it = std::find_if(all.begin(), all.end(), [l](const auto& e) { return e.first == l; });
  if (it == all.end())
    throw std::runtime_error(
      fmt::format("{}: launch {} arrived, but this PE runs no part of it", node_name(), l));
  const auto index = static_cast<uint32_t>(it - all.begin());
  if (std::find(arrived_.begin(), arrived_.end(), index) != arrived_.end() ||
      (kernel_ && launch_ == l))
    throw std::runtime_error(fmt::format("{}: launch {} arrived twice", node_name(), l));
  arrived_.push_back(index);
  if (!kernel_ || kernel_->finished())
    start_next_launch();
}

void pe_cpu::start_next_launch() {
  if (arrived_.empty())
    return;
  const auto& [l, part] = cfg_.program->launches[arrived_.front()];
  arrived_.erase(arrived_.begin());
  launch_ = l;
  current_ = part.get();
  if (kernel_)
    kernel_.reset(); // its fiber has returned; its TCM goes back
  finished_ = false;
  start_kernel(*part);
}

void pe_cpu::on_start() {
  if (cfg_.program && !cfg_.program->launches.empty() && !cfg_.launched)
    throw std::runtime_error(fmt::format("{}: a host program's launch reaches a PE through its "
                                         "cube's M_CPU, and this cube has none",
                                         node_name()));
  if (cfg_.program && !cfg_.launched)
    start_kernel(*cfg_.program);
}

void pe_cpu::start_kernel(const pe_program& p) {
  if (kernel_)
    throw std::runtime_error(fmt::format("{}: launched twice", node_name()));
  const std::string pe = detail::parent_of(node_name());
  scheduler_ = port_link(0, ports()[0].to);
  noc_ = find_link(detail::cube_of(node_name()) + ".noc");
  kernel_site site;
  site.kernel = p.kernel;
  site.pe = pe;
  if (!place().pe)
    throw std::runtime_error(fmt::format("{}: not inside a PE", node_name()));
  site.sip = *place().sip;
  site.cube = *place().cube;
  site.index = *place().pe;
  pe_index_ = site.index;
  site.program_id = p.program_id;
  site.num_programs = p.num_programs;
  site.tcm_bytes = cfg_.tcm_bytes;
  site.tcm_reserved = cfg_.tcm_reserved;
  site.fabric = cfg_.fabric;
  site.placed = p.placed;
  site.host_tcm_bytes = p.host_tcm_bytes;
  if (const topology_spec* topo = cfg_.topology)
    site.tcm_size = [topo](const std::string& tcm) -> uint64_t {
      const node_spec* n = topo->find_node(tcm);
      return n && n->kind == "pe_tcm" ? n->params.required<uint64_t>("size_kib") * 1024
                                      : global_address::max_offset + 1;
    };
  kernel_ = std::make_unique<kernel_context>(std::move(site), static_cast<kernel_port&>(*this));
  if (launches_done_ == 0)
    started_ps_ = now().ps();
  // In a program, the slice names its launch (context launch + 1): the
  // trace draws a flow from the host's launch slice to it.
  hook_event(trace_kind::call_start,
             {0, kernel_slice, 0,
              cfg_.program && !cfg_.program->launches.empty() ? uint64_t{launch_} + 1 : 0, 0});
  if (p.fn)
    step([&] { kernel_->start(p.fn); });
  else // the built-in driver: every command at once, then wait for all
    step([&] { kernel_->run_commands(p.commands); });
}

uint64_t pe_cpu::issue(const pe_command& c, std::span<const uint8_t> payload,
                       std::span<const uint64_t> deps) {
  const uint64_t id = commands_.size() + 1;
  outgoing m;
  m.kind = kind_of(pipe_kind::command);
  m.body = encode_command(c, id, payload,
                          current_->fn ? std::string_view(current_->kernel)
                                           : std::string_view(),
                          deps);
  send_on(scheduler_, std::move(m));
  issued& i = commands_.emplace_back();
  const command_facts f = facts_of(c);
  i.stat.id = id;
  i.stat.issue_ps = now().ps();
  i.stat.call = static_cast<uint8_t>(f.call);
  i.stat.unit = f.unit;
  i.stat.flops = f.flops;
  i.stat.bytes = f.bytes;
  i.stat.after = resumed_by_;
  i.stat.what = describe(c);
  return id;
}

void pe_cpu::blocked(wait_kind kind, uint64_t command) {
  waiting_ = kind;
  blocked_since_ = now().ps();
  hook_event(trace_kind::call_start, {0, static_cast<uint16_t>(kind), 0, command, 0});
}

void pe_cpu::resumed() {
  waited_ps_[static_cast<size_t>(waiting_)] += now().ps() - blocked_since_;
  if (resumed_by_ != 0 && resumed_by_ <= commands_.size()) {
    command_stat& s = commands_[resumed_by_ - 1].stat;
    s.resumed_kernel = true;
    s.blocked_from_ps = blocked_since_;
  }
  hook_event(trace_kind::call_end, {0, static_cast<uint16_t>(waiting_), 0, 0, 0});
}

void pe_cpu::program_begun(uint32_t linear) {
  // A host program's launches report their own spans (kernel_info::launch).
  if (!cfg_.program->launches.empty())
    return;
  if (!programs_.empty() && programs_.back().end_ps == UINT64_MAX)
    programs_.back().end_ps = now().ps();
  if (linear != no_program)
    programs_.push_back({linear, now().ps(), UINT64_MAX});
}

void pe_cpu::mark_pending(uint64_t address, uint64_t bytes, uint64_t command) {
  // Without a NOC no other PE reaches this TCM; a zero-byte notice takes no
  // link bandwidth and no TCM time (memory.capnp `mark`).
  if (!noc_ || bytes == 0 || bytes > std::numeric_limits<uint32_t>::max())
    return;
  auto msg = std::make_unique<capnp::MallocMessageBuilder>(64);
  auto a = msg->initRoot<wire::MemAccess>();
  a.setRows(1);
  a.setRowBytes(bytes);
  a.setStride(bytes);
  a.setWho(current_->kernel);
  a.setCommand(command);
  a.setPending(true);
  a.setMark(true);
  outgoing m;
  m.kind = kind_of(pipe_kind::mem_write);
  m.bytes = 0;
  m.arg0 = address;
  m.arg1 = mem_tag{id(), static_cast<uint32_t>(bytes)}.pack();
  m.body = message_body{std::move(msg)};
  send_on(*noc_, std::move(m));
}

bool pe_cpu::done(uint64_t id) const {
  if (id == 0 || id > commands_.size())
    throw tl::kernel_error(fmt::format("kernel {} on {}: command {} was never issued",
                                       current_->kernel, node_name(), id));
  return commands_[id - 1].stat.done;
}

std::string pe_cpu::pending_from(uint64_t id) const {
  (void)done(id); // checks the id
  return commands_[id - 1].pending_from;
}

std::vector<uint8_t> pe_cpu::take_data(uint64_t id) {
  (void)done(id); // checks the id
  return std::move(commands_[id - 1].data);
}

void pe_cpu::on_message(sim_event& ev) {
  if (ev.kind == kind_of(pipe_kind::launch)) {
    if (cfg_.program && cfg_.launched && !cfg_.program->launches.empty()) {
      launch_arrived(ev.arg1);
      return;
    }
    if (!cfg_.program || !cfg_.launched)
      throw std::runtime_error(fmt::format("a kernel launch from node {}, but {} has {}", ev.src,
                                           node_name(),
                                           cfg_.program ? "started at t = 0" : "no program"));
    start_kernel(*cfg_.program);
    return;
  }
  if (ev.kind != kind_of(pipe_kind::command_done))
    throw std::runtime_error(
      fmt::format("unexpected message kind {} from node {}", ev.kind, ev.src));
  const uint64_t id = ev.arg0;
  if (id == 0 || id > commands_.size())
    throw std::runtime_error(fmt::format("done notice for unknown command {}", id));
  issued& c = commands_[id - 1];
  if (c.stat.done)
    throw std::runtime_error(fmt::format("command {} reported done twice", id));
  c.stat.done = true;
  c.stat.done_ps = now().ps();
  c.stat.tiles = ev.arg1;
  ++done_count_;
  if (!ev.body.empty()) { // a load's token, carrying what it read
    const auto token = ev.body.root<wire::TileToken>();
    if (token.hasPendingFrom())
      c.pending_from = token.getPendingFrom().cStr();
    const auto data = token.getData();
    c.data.assign(data.begin(), data.end());
  }
  resumed_by_ = id;
  step([&] { kernel_->on_done(); });
}

void pe_cpu::on_finish() {
  // Its commands only as the table's rows (a figure per command and field
  // was 4 interned strings a command, 20% of a kernel run's wall time, and
  // every reader reads the table: issue 62).
  std::vector<command_stat> rows;
  rows.reserve(commands_.size());
  for (const issued& c : commands_)
    rows.push_back(c.stat);
  if (!rows.empty())
    add_table(std::make_shared<command_table>(std::move(rows)));
  if (kernel_) {
    const bool all = finished_ && launches_done_ == cfg_.program->launches.size();
    add_figure(kernel_stats::finished, (cfg_.program->launches.empty() ? finished_ : all) ? 1 : 0);
    add_figure(kernel_stats::start_ps, started_ps_);
    add_figure(kernel_stats::end_ps, finished_ps_);
    add_figure(kernel_stats::blocked_load_ps, waited_ps_[static_cast<size_t>(wait_kind::load)]);
    add_figure(kernel_stats::wait_ps, waited_ps_[static_cast<size_t>(wait_kind::handle)]);
    add_figure(kernel_stats::tcm_wait_ps, waited_ps_[static_cast<size_t>(wait_kind::tcm)]);
    add_figure(kernel_stats::last_resumed_by, finished_ ? last_step_by_ : 0);
    add_figure(kernel_stats::tcm_peak_bytes, std::max(tcm_peak_, kernel_->tcm().peak_used()));
    for (const program_span& p : programs_) {
      if (p.end_ps == UINT64_MAX)
        continue; // it never returned
      const std::string id = std::to_string(p.linear);
      add_figure(kernel_stats::program_start_ps, id, p.start_ps);
      add_figure(kernel_stats::program_end_ps, id, p.end_ps);
    }
    for (const launch_end& e : ended_) {
      const std::string l = std::to_string(e.launch);
      add_figure(kernel_stats::launch_end_ps, l, e.end_ps);
      add_figure(kernel_stats::launch_last_command, l, e.last_command);
    }
  }
}

std::string pe_cpu::pending_work() const {
  std::string out = node::pending_work();
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  if (cfg_.program && cfg_.launched && cfg_.program->launches.empty() && !kernel_)
    add("its kernel's launch has not arrived");
  if (cfg_.program && !cfg_.program->launches.empty()) {
    const size_t running = kernel_ && !kernel_->finished() ? 1 : 0;
    const size_t left =
      cfg_.program->launches.size() - launches_done_ - running - arrived_.size();
    if (left > 0)
      add(fmt::format("{} of its {} launches have not arrived", left,
                      cfg_.program->launches.size()));
    if (!arrived_.empty())
      add(fmt::format("{} launches wait for the kernel running", arrived_.size()));
  }
  if (kernel_ && !kernel_->finished()) {
    const std::string w = kernel_->waiting_for();
    add(fmt::format("kernel {} has not returned{}", current_->kernel,
                    w.empty() ? "" : " (it " + w + ")"));
  }
  for (size_t i = 0; i < commands_.size(); ++i)
    if (!commands_[i].stat.done)
      add(fmt::format("command {} not done", i + 1));
  return out;
}

} // namespace kb
