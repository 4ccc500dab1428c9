#include "actors/detail/forwarder.hpp"

#include "actors/detail/names.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb::detail {

forwarder_node::forwarder_node(caf::actor_config& cfg, node_init init,
                               SimTime latency, std::shared_ptr<const fabric_map> fabric,
                               bool credits, uint32_t hop_slots)
  : node(cfg, std::move(init)), latency_(latency), port_(std::move(fabric), hop_slots),
    credits_(credits) {
  // The node id names this sender's input queue at the next forwarder.
  if (credits_ && id() >= no_queue)
    throw std::invalid_argument(fmt::format(
      "{}: fabric_credits needs node ids below {} (this one is {})", node_name(), no_queue, id()));
}

void forwarder_node::on_message(sim_event& ev) {
  route(ev, no_queue);
}

bool forwarder_node::route(sim_event& ev, queue_id from) {
  const auto kind = static_cast<pipe_kind>(ev.kind);
  switch (kind) {
  case pipe_kind::mem_read:
  case pipe_kind::mem_write:
    ++requests_;
    return forward(port_.memory_of(ev.arg0, node_name()), ev, from);
  case pipe_kind::mem_data:
  case pipe_kind::mem_ack:
    ++replies_;
    return forward(mem_tag::unpack(ev.arg1).requester, ev, from);
  case pipe_kind::launch:
  case pipe_kind::kernel_done:
    forward_in_cube(ev);
    return true;
  default:
    on_other(ev);
    return true;
  }
}

void forwarder_node::on_queue_arrival(queue_id q) {
  if (q >= stalled_.size() || !stalled_[q])
    drain(q);
}

void forwarder_node::drain(queue_id q) {
  // take() returns the credit to the sender of `q`: a message leaves the
  // input queue only when the one before it has left this node.
  while (!queue_empty(q)) {
    sim_event ev = take(q);
    if (!route(ev, q)) {
      if (stalled_.size() <= q)
        stalled_.resize(q + 1u, 0);
      stalled_[q] = 1;
      return;
    }
  }
}

void forwarder_node::on_unblocked(uint32_t link, queue_id) {
  auto& from = held_from_.at(link);
  const queue_id q = from.front();
  from.pop_front();
  if (q == no_queue)
    return;
  stalled_[q] = 0;
  drain(q);
}

void forwarder_node::forward_in_cube(sim_event& ev) {
  pass_on(in_cube_link(static_cast<pipe_kind>(ev.kind) == pipe_kind::launch, ev.arg0), ev);
}

uint32_t forwarder_node::in_cube_link(bool launch, uint64_t pe) {
  // A launch goes to PE `pe`'s PE_CPU, a completion to the M_CPU, both in
  // this forwarder's cube and linked to it.
  const uint64_t slot = launch ? pe + 1u : 0u;
  if (slot < cube_links_.size() && cube_links_[slot] != no_link)
    return cube_links_[slot];
  const std::string cube = parent_of(node_name());
  const std::string to = launch ? fmt::format("{}.pe{}.pe_cpu", cube, pe) : cube + ".m_cpu";
  const auto link = find_link(to);
  if (!link)
    throw std::runtime_error(fmt::format("{}: a kernel {} for {}, which has no link from here",
                                         node_name(), launch ? "launch" : "completion", to));
  if (cube_links_.size() <= slot)
    cube_links_.resize(slot + 1u, no_link);
  cube_links_[slot] = *link;
  return *link;
}

bool forwarder_node::forward(node_id toward, sim_event& ev, queue_id from) {
  const auto hop =
    port_.hop_toward(id(), toward, [this](node_id n) { return find_link_to(n); });
  // With credits, the next forwarder (not the destination) queues it.
  if (credits_ && hop.next != toward)
    return pass_on(hop.link, ev, static_cast<queue_id>(id()), from);
  pass_on(hop.link, ev);
  return true;
}

bool forwarder_node::pass_on(uint32_t link, sim_event& ev, queue_id queue, queue_id from) {
  outgoing m;
  m.queue = queue;
  m.kind = ev.kind;
  m.head = now() + latency_;
  m.tail = ev.tail + latency_;
  m.bytes = ev.bytes;
  m.arg0 = ev.arg0;
  m.arg1 = ev.arg1;
  m.body = std::move(ev.body); // a kernel load's or store's data, if any
  if (send_on(link, std::move(m)))
    return true;
  // Held for lack of credit: it leaves in order, on_unblocked says when.
  ++held_;
  if (held_from_.size() <= link)
    held_from_.resize(link + 1u);
  held_from_[link].push_back(from);
  return false;
}

service_time_fn forwarder_service_time(SimTime latency) {
  return [latency](const service_request& r) {
    return crossing{r.in.head + latency, r.in.tail + latency};
  };
}

void forwarder_node::on_other(sim_event& ev) {
  throw std::runtime_error(fmt::format(
    "{}: unexpected message kind {} (expected a memory request or reply)",
    node_name(), ev.kind));
}

void forwarder_node::on_finish() {
  add_figure(stat_requests, requests_);
  add_figure(stat_replies, replies_);
  if (credits_)
    add_figure(stat_held_for_credit, held_);
}

} // namespace kb::detail
