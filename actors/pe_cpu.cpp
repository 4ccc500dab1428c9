#include "actors/pe_cpu.hpp"

#include "runtime/pipeline/driver_program.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

kind_doc pe_cpu::doc() {
  return {"pe_cpu",
          "runs the PE's control program (the built-in driver, or a kernel) "
          "and submits commands to PE_SCHEDULER",
          {}};
}

pe_cpu::config pe_cpu::read_config(const param_reader&,
                                   const machine_context& ctx) {
  config c;
  const std::string prefix = ctx.node.substr(0, ctx.node.rfind('.'));
  if (ctx.programs)
    if (auto it = ctx.programs->find(prefix); it != ctx.programs->end())
      c.program = it->second;
  return c;
}

pe_cpu::pe_cpu(caf::actor_config& cfg, node_init init, config c)
  : node(cfg, std::move(init)), cfg_(std::move(c)) {}

void pe_cpu::on_start() {
  if (!cfg_.program)
    return;
  const std::string& n = node_name();
  const uint32_t sched = link_to(n.substr(0, n.rfind('.')) + ".pe_scheduler");
  for (size_t i = 0; i < cfg_.program->commands.size(); ++i) {
    outgoing m;
    m.kind = kind_of(pipe_kind::command);
    m.body = encode_command(cfg_.program->commands[i], i + 1);
    send_on(sched, std::move(m));
    commands_.push_back({now().ps(), 0, 0, false});
  }
}

void pe_cpu::on_message(sim_event& ev) {
  if (ev.kind != kind_of(pipe_kind::command_done))
    throw std::runtime_error(
      fmt::format("unexpected message kind {} from node {}", ev.kind, ev.src));
  const uint64_t id = ev.arg0;
  if (id == 0 || id > commands_.size())
    throw std::runtime_error(fmt::format("done notice for unknown command {}", id));
  issued& c = commands_[id - 1];
  if (c.done)
    throw std::runtime_error(fmt::format("command {} reported done twice", id));
  c.done = true;
  c.done_ps = now().ps();
  c.tiles = ev.arg1;
}

void pe_cpu::on_finish() {
  for (size_t i = 0; i < commands_.size(); ++i) {
    const std::string p = fmt::format("cmd{}.", i + 1);
    add_figure(p + "issue_ps", commands_[i].issue_ps);
    add_figure(p + "done_ps", commands_[i].done_ps);
    add_figure(p + "tiles", commands_[i].tiles);
    add_figure(p + "done", commands_[i].done ? 1 : 0);
  }
}

std::string pe_cpu::pending_work() const {
  std::string out = node::pending_work();
  for (size_t i = 0; i < commands_.size(); ++i)
    if (!commands_[i].done)
      out += fmt::format("{}command {} not done", out.empty() ? "" : "; ", i + 1);
  return out;
}

} // namespace kb
