#include "runtime/pipeline/unit_node.hpp"

#include "runtime/pipeline/op_sink.hpp"
#include "runtime/pipeline/stage_ops.hpp"

#include "runtime/pipeline/token.hpp"
#include "runtime/machine/pipeline_stats.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

unit_node::unit_node(caf::actor_config& cfg, node_init init,
                     const std::vector<stage_type>& serves)
  : node(cfg, std::move(init)) {
  for (const stage_type t : serves) {
    lane_state ls;
    ls.spec = {std::string(lane_name(t)), t};
    lanes_.push_back(std::move(ls));
  }
  if (!serves.empty())
    role_ = unit_of(serves.front());
  // The run's sink is the op log's (runtime/pipeline/op_sink) or none.
  ops_ = dynamic_cast<op_sink*>(sink());
  // A unit's node is `<pe>.<unit_name(role)>`: its links to the other units
  // of its PE, found once.
  const auto dot = node_name().rfind('.');
  if (dot != std::string::npos)
    for (size_t r = 0; r < unit_role_count; ++r)
      unit_links_[r] =
        find_link(node_name().substr(0, dot + 1) + std::string(unit_name(unit_role(r))));
}

wire::TileToken::Reader unit_node::token(lane_id lane) const {
  return lanes_[lane].reader;
}

service_tag unit_node::tag(lane_id lane) const {
  auto t = token(lane);
  auto s = stage(lane);
  return {lane, static_cast<uint16_t>(s.getType()), t.getTile(), t.getCommand(),
          s.getBytes()};
}

// -- taking ------------------------------------------------------------------

void unit_node::on_queue_arrival(queue_id q) {
  for (lane_id l = 0; l < lanes_.size(); ++l)
    if (static_cast<queue_id>(lanes_[l].spec.serves) == q) {
      try_take(l);
      return;
    }
  throw std::runtime_error(
    fmt::format("{} received a token for queue {} ({}), which none of its "
                "lanes serves",
                node_name(), q, to_string(static_cast<stage_type>(q))));
}

void unit_node::try_take(lane_id lane) {
  lane_state& ls = lanes_[lane];
  const auto q = static_cast<queue_id>(ls.spec.serves);
  if (ls.busy || queue_empty(q))
    return;
  sim_event ev = take(q);
  if (ev.kind != kind_of(pipe_kind::token) || ev.body.empty())
    throw std::runtime_error(fmt::format(
      "{}: lane {} expected a tile token, got message kind {}", node_name(),
      ls.spec.name, ev.kind));
  ls.wait_ps += (now() - ev.t).ps();
  ls.busy = true;
  ls.token = std::move(ev.body);
  ls.root = ls.token.root_builder<wire::TileToken>();
  ls.reader = ls.root.asReader();
  const wire::TileToken::Reader t = ls.reader;
  ls.stages = t.getStages();
  ls.stage_idx = t.getStageIdx();
  if (ls.stage_idx >= ls.stages.size())
    throw std::runtime_error(fmt::format("{}: lane {} got tile {} of command {} at stage {} of {}",
                                         node_name(), ls.spec.name, t.getTile(), t.getCommand(),
                                         ls.stage_idx, ls.stages.size()));
  ls.command = t.getCommand();
  ls.tile = t.getTile();
  ls.stage = ls.stages[ls.stage_idx];
  start(lane);
}

void unit_node::start(lane_id lane) {
  lane_state& ls = lanes_[lane];
  auto s = ls.stage;
  if (static_cast<stage_type>(s.getType()) != ls.spec.serves)
    throw std::runtime_error(fmt::format(
      "{}: lane {} serves {} but the token's stage is {}", node_name(),
      ls.spec.name, to_string(ls.spec.serves),
      to_string(to_stage_type(s.getType()))));
  ls.stage_start = now();
  ls.record_start.reset();
  if (traces_services())
    hook_service_start(tag(lane));
  begin_stage(lane, s);
}

// -- ending and forwarding ---------------------------------------------------

void unit_node::end_stage(lane_id lane) {
  lane_state& ls = lanes_.at(lane);
  if (!ls.busy || ls.blocked)
    throw std::logic_error(fmt::format("{}: lane {} ended a stage it was not "
                                       "serving",
                                       node_name(), ls.spec.name));
  if (traces_services())
    hook_service_end(tag(lane));
  if (op_sink* s = ops_) { // the op log (seed ADR-0020 D2): only here
    if (!pe_key_)
      pe_key_ = stage_ops::pe_key(place(), node_name());
    if (auto op = stage_ops::op_of(token(lane), ls.stage, node_name(), *pe_key_,
                                   ls.record_start.value_or(ls.stage_start), now(), next_op_id()))
      s->append(std::move(*op));
  }
  ls.busy_ps += (now() - ls.stage_start).ps();
  ++ls.served;
  ls.bytes += ls.stage.getBytes();
  if (ls.stage_idx + 1u >= ls.stages.size()) {
    // The last stage: tell the scheduler, then take the next token.
    const auto t = token(lane);
    outgoing m;
    m.kind = kind_of(pipe_kind::tile_done);
    m.arg0 = ls.command;
    m.arg1 = ls.tile;
    // A kernel load: the bytes (or who wrote them, if a compute result
    // did: no bytes in Phase 1) go back to it.
    if ((t.hasData() || t.hasPendingFrom()) && ls.stage.getWantData())
      m.body = std::move(ls.token);
    send_on(done_link(t.getScheduler()), std::move(m));
    release(lane);
    return;
  }
  ++ls.stage_idx;
  ls.root.setStageIdx(ls.stage_idx);
  const auto next = ls.stages[ls.stage_idx];
  ls.stage = next;
  if (static_cast<unit_role>(next.getUnit()) == role_) {
    if (to_stage_type(next.getType()) == ls.spec.serves) {
      start(lane); // back-to-back on the same lane, no re-queueing
      return;
    }
    throw std::runtime_error(fmt::format(
      "{}: plan of tile {} goes from lane {} to another lane of the same "
      "unit without a stage in between",
      node_name(), ls.tile, ls.spec.name));
  }
  forward(lane);
}

void unit_node::forward(lane_id lane) {
  lane_state& ls = lanes_[lane];
  auto s = ls.stage;
  const uint32_t l = unit_link(static_cast<unit_role>(s.getUnit()));
  const auto q = static_cast<queue_id>(s.getType());
  outgoing m;
  m.kind = kind_of(pipe_kind::token);
  m.queue = q;
  m.arg0 = ls.command; // names the tile in message-hop traces
  m.arg1 = ls.tile;
  m.body = std::move(ls.token);
  if (send_on(l, std::move(m))) {
    release(lane);
    return;
  }
  ls.blocked = true;
  ls.blocked_since = now();
  waiting_[{l, q}].push_back(lane);
}

void unit_node::on_unblocked(uint32_t link, queue_id q) {
  auto it = waiting_.find({link, q});
  if (it == waiting_.end() || it->second.empty())
    return;
  const lane_id lane = it->second.front();
  it->second.erase(it->second.begin());
  lane_state& ls = lanes_[lane];
  ls.stall_ps += (now() - ls.blocked_since).ps();
  ls.blocked = false;
  release(lane);
}

void unit_node::release(lane_id lane) {
  lane_state& ls = lanes_[lane];
  ls.busy = false;
  ls.token = message_body{};
  ls.root = wire::TileToken::Builder{nullptr};
  ls.reader = {};
  ls.stage = {};
  ls.stages = {};
  try_take(lane);
}

uint32_t unit_node::unit_link(unit_role role) const {
  if (const auto& l = unit_links_[static_cast<size_t>(role)])
    return *l;
  const auto dot = node_name().rfind('.');
  throw std::runtime_error(fmt::format(
    "{}: the plan routes a token to '{}{}', but there is no link to it", node_name(),
    dot == std::string::npos ? std::string() : node_name().substr(0, dot + 1), unit_name(role)));
}

uint32_t unit_node::done_link(node_id scheduler) {
  if (scheduler == done_to_)
    return done_link_;
  const auto l = find_link_to(scheduler);
  if (!l)
    throw std::runtime_error(fmt::format(
      "{}: a token's tile-done notice goes to node {}, but there is no link to it",
      node_name(), scheduler));
  done_to_ = scheduler;
  done_link_ = *l;
  return *l;
}

// -- reporting ---------------------------------------------------------------

void unit_node::on_finish() {
  for (const auto& ls : lanes_) {
    add_figure(lane_stats::busy_ps, ls.spec.name, ls.busy_ps);
    add_figure(lane_stats::stall_ps, ls.spec.name, ls.stall_ps);
    add_figure(lane_stats::wait_ps, ls.spec.name, ls.wait_ps);
    add_figure(lane_stats::stages, ls.spec.name, ls.served);
    add_figure(lane_stats::bytes, ls.spec.name, ls.bytes);
  }
}

std::string unit_node::pending_work() const {
  std::string out = node::pending_work();
  for (const auto& ls : lanes_) {
    if (!ls.busy)
      continue;
    auto t = ls.token.empty() ? wire::TileToken::Reader{}
                              : ls.token.root<wire::TileToken>();
    out += fmt::format("{}lane {} {} (command {}, tile {})",
                       out.empty() ? "" : "; ", ls.spec.name,
                       ls.blocked ? "blocked for lack of credit" : "busy",
                       t.getCommand(), t.getTile());
  }
  return out;
}

} // namespace kb
