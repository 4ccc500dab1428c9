#include "actors/pe_scheduler.hpp"

#include "runtime/pipeline/command.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"
#include "runtime/pipeline/token.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

kind_doc pe_scheduler::doc() {
  return {"pe_scheduler",
          "plans composite commands (ADR-0042) and feeds their tiles in "
          "command FIFO order from a single feeder; completes each command "
          "exactly once",
          {}};
}

pe_scheduler::config pe_scheduler::read_config(const param_reader&,
                                               const machine_context&) {
  return {};
}

pe_scheduler::pe_scheduler(caf::actor_config& cfg, node_init init, config)
  : node(cfg, std::move(init)) {
  const auto& n = node_name();
  pe_prefix_ = n.substr(0, n.rfind('.'));
}

void pe_scheduler::on_message(sim_event& ev) {
  switch (static_cast<pipe_kind>(ev.kind)) {
    case pipe_kind::command: on_command(ev); return;
    case pipe_kind::tile_done: on_tile_done(ev); return;
    default:
      throw std::runtime_error(
        fmt::format("unexpected message kind {} from node {}", ev.kind, ev.src));
  }
}

void pe_scheduler::on_command(sim_event& ev) {
  if (ev.body.empty())
    throw std::runtime_error("command message without a body");
  auto cmd = ev.body.root<wire::PeCommand>();
  const uint64_t id = cmd.getId();
  if (commands_.count(id))
    throw std::runtime_error(fmt::format("command {} submitted twice", id));
  pipeline_plan plan;
  try {
    plan = plan_command(cmd, pe_prefix_);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("command {}: {}", id, e.what()));
  }
  auto requester = find_link_to(ev.src);
  if (!requester)
    throw std::runtime_error(fmt::format("command {} from node {}, which "
                                         "has no link back",
                                         id, ev.src));
  hook_event(trace_kind::command_submitted, {0, 0, plan.tiles.size(), id, 0});
  command_state st;
  st.id = id;
  st.requester_link = *requester;
  st.done.assign(plan.tiles.size(), false);
  commands_.emplace(id, std::move(st));

  feed f;
  f.command = id;
  for (const auto& tile : plan.tiles) {
    if (tile.stages.empty())
      throw std::runtime_error(
        fmt::format("command {}: tile {} has no stages", id, tile.tile_id));
    const stage& first = tile.stages.front();
    auto l = find_link(first.component);
    if (!l)
      throw std::runtime_error(fmt::format(
        "command {}: tile {} starts on '{}', which has no link from {}", id,
        tile.tile_id, first.component, node_name()));
    f.first.emplace_back(*l, static_cast<queue_id>(first.type));
    f.tokens.push_back(make_token(tile, id, node_name()));
  }
  feeds_.push_back(std::move(f));
  run_feeder();
}

void pe_scheduler::run_feeder() {
  while (!feeder_blocked_ && !feeds_.empty()) {
    feed& f = feeds_.front();
    if (f.next == f.tokens.size()) {
      feeds_.pop_front();
      continue;
    }
    const size_t i = f.next++;
    auto t = f.tokens[i].root<wire::TileToken>();
    const service_tag tag{0, static_cast<uint16_t>(current_stage(t).getType()),
                          t.getTile(), f.command, 0};
    outgoing m;
    m.kind = kind_of(pipe_kind::token);
    m.queue = f.first[i].second;
    m.arg0 = f.command;
    m.arg1 = t.getTile();
    m.body = std::move(f.tokens[i]);
    ++tiles_fed_;
    if (send_on(f.first[i].first, std::move(m))) {
      hook_event(trace_kind::sub_command_dispatched, tag);
    } else {
      // Held for lack of credit: it is dispatched when it leaves.
      feeder_blocked_ = true;
      blocked_since_ = now();
      pending_dispatch_ = tag;
    }
  }
}

void pe_scheduler::on_unblocked(uint32_t, queue_id) {
  if (!feeder_blocked_)
    return;
  feeder_blocked_ = false;
  stall_ps_ += (now() - blocked_since_).ps();
  hook_event(trace_kind::sub_command_dispatched, pending_dispatch_);
  run_feeder();
}

void pe_scheduler::on_tile_done(const sim_event& ev) {
  const uint64_t id = ev.arg0;
  const auto tile = ev.arg1;
  auto it = commands_.find(id);
  if (it == commands_.end())
    throw std::runtime_error(
      fmt::format("tile-done for unknown command {} (tile {})", id, tile));
  command_state& st = it->second;
  if (tile >= st.done.size())
    throw std::runtime_error(
      fmt::format("command {}: tile-done for tile {}, which it does not have "
                  "({} tiles)",
                  id, tile, st.done.size()));
  if (st.done[tile])
    throw std::runtime_error(
      fmt::format("command {}: tile {} completed twice", id, tile));
  st.done[tile] = true;
  hook_event(trace_kind::tile_ready, {0, 0, tile, id, 0});
  if (++st.completed < st.done.size())
    return;
  hook_event(trace_kind::command_complete, {0, 0, st.done.size(), id, 0});
  outgoing m;
  m.kind = kind_of(pipe_kind::command_done);
  m.arg0 = id;
  m.arg1 = st.done.size();
  send_on(st.requester_link, std::move(m));
  ++commands_done_;
}

void pe_scheduler::on_finish() {
  add_figure("feeder.stall_ps", stall_ps_);
  add_figure("tiles_fed", tiles_fed_);
  add_figure("commands_done", commands_done_);
}

std::string pe_scheduler::pending_work() const {
  std::string out = node::pending_work();
  for (const auto& [id, st] : commands_)
    if (st.completed < st.done.size())
      out += fmt::format("{}command {}: {} of {} tiles done", out.empty() ? "" : "; ",
                       id, st.completed, st.done.size());
  if (feeder_blocked_)
    out += "; feeder blocked for lack of credit";
  return out;
}

} // namespace kb
