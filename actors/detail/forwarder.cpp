#include "actors/detail/forwarder.hpp"

#include "actors/detail/names.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb::detail {

forwarder_node::forwarder_node(caf::actor_config& cfg, node_init init,
                               SimTime latency)
  : node(cfg, std::move(init)), latency_(latency), cube_(cube_of(node_name())),
    cube_id_(cube_id_of(cube_)) {}

void forwarder_node::on_message(sim_event& ev) {
  const auto kind = static_cast<pipe_kind>(ev.kind);
  switch (kind) {
  case pipe_kind::mem_read:
  case pipe_kind::mem_write:
    ++requests_;
    forward(request_link(global_address::decode(ev.arg0)), ev);
    return;
  case pipe_kind::mem_data:
  case pipe_kind::mem_ack: {
    const node_id requester = mem_tag::unpack(ev.arg1).requester;
    const auto l = find_link_to(requester);
    if (!l)
      throw std::runtime_error(fmt::format(
        "{}: no link to the requester (node #{}) of the reply for {}",
        node_name(), requester, describe_address(ev.arg0)));
    ++replies_;
    forward(*l, ev);
    return;
  }
  default:
    on_other(ev);
  }
}

void forwarder_node::forward(uint32_t link, const sim_event& ev) {
  outgoing m;
  m.kind = ev.kind;
  m.head = now() + latency_;
  m.tail = ev.tail + latency_;
  m.bytes = ev.bytes;
  m.arg0 = ev.arg0;
  m.arg1 = ev.arg1;
  send_on(link, std::move(m));
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
