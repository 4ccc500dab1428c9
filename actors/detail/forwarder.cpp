#include "actors/detail/forwarder.hpp"

#include "actors/detail/names.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb::detail {

forwarder_node::forwarder_node(caf::actor_config& cfg, node_init init,
                               SimTime latency, std::shared_ptr<const fabric_map> fabric)
  : node(cfg, std::move(init)), latency_(latency), port_(std::move(fabric)) {}

void forwarder_node::on_message(sim_event& ev) {
  const auto kind = static_cast<pipe_kind>(ev.kind);
  switch (kind) {
  case pipe_kind::mem_read:
  case pipe_kind::mem_write:
    ++requests_;
    forward(port_.memory_of(ev.arg0, node_name()), ev);
    return;
  case pipe_kind::mem_data:
  case pipe_kind::mem_ack:
    ++replies_;
    forward(mem_tag::unpack(ev.arg1).requester, ev);
    return;
  case pipe_kind::launch:
  case pipe_kind::kernel_done:
    forward_in_cube(ev);
    return;
  default:
    on_other(ev);
  }
}

void forwarder_node::forward_in_cube(sim_event& ev) {
  // A launch goes to PE arg0's PE_CPU, a completion to the M_CPU, both in
  // this forwarder's cube and linked to it.
  const std::string cube = parent_of(node_name());
  const std::string to = static_cast<pipe_kind>(ev.kind) == pipe_kind::launch
                           ? fmt::format("{}.pe{}.pe_cpu", cube, ev.arg0)
                           : cube + ".m_cpu";
  const auto link = find_link(to);
  if (!link)
    throw std::runtime_error(fmt::format("{}: a kernel {} for {}, which has no link from here",
                                         node_name(),
                                         static_cast<pipe_kind>(ev.kind) == pipe_kind::launch
                                           ? "launch"
                                           : "completion",
                                         to));
  pass_on(*link, ev);
}

void forwarder_node::forward(node_id toward, sim_event& ev) {
  pass_on(port_.link_toward(id(), toward, [this](node_id n) { return find_link_to(n); }), ev);
}

void forwarder_node::pass_on(uint32_t link, sim_event& ev) {
  outgoing m;
  m.kind = ev.kind;
  m.head = now() + latency_;
  m.tail = ev.tail + latency_;
  m.bytes = ev.bytes;
  m.arg0 = ev.arg0;
  m.arg1 = ev.arg1;
  m.body = std::move(ev.body); // a kernel load's or store's data, if any
  send_on(link, std::move(m));
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
  add_figure("requests", requests_);
  add_figure("replies", replies_);
}

} // namespace kb::detail
