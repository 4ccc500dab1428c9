#include "actors/detail/memory_server.hpp"

#include "actors/detail/names.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb::detail {

// -- memory_server -------------------------------------------------------------

SimTime memory_server::start(SimTime head, SimTime tail, SimTime x) {
  const SimTime s = std::max(head, free_);
  free_ = std::max(s + x, tail);
  busy_ps_ += (free_ - s).ps();
  ++requests_;
  return s;
}

memory_reply memory_server::read(SimTime head, uint64_t length) {
  const SimTime x = xfer(length, timing_.bandwidth);
  const SimTime s = start(head, head, x);
  read_bytes_ += length;
  return {s + timing_.latency, s + x + timing_.latency};
}

memory_reply memory_server::write(SimTime head, SimTime tail, uint64_t length) {
  const SimTime x = xfer(length, timing_.bandwidth);
  start(head, tail, x);
  write_bytes_ += length;
  const SimTime ack = free_ + timing_.latency;
  return {ack, ack};
}

// -- memory_server_node --------------------------------------------------------

memory_server_node::memory_server_node(caf::actor_config& cfg, node_init init,
                                       memory_timing timing,
                                       std::shared_ptr<const fabric_map> fabric,
                                       std::string figure_prefix)
  : node(cfg, std::move(init)), server_(timing), port_(std::move(fabric)),
    prefix_(std::move(figure_prefix)) {}

bool memory_server_node::is_request(const sim_event& ev) {
  return ev.kind == kind_of(pipe_kind::mem_read) || ev.kind == kind_of(pipe_kind::mem_write);
}

void memory_server_node::check_address(uint64_t address) {
  const node_id owner = port_.memory_of(address, node_name());
  if (owner != id())
    throw std::runtime_error(fmt::format("{} got a request for address {}, which {} serves",
                                         node_name(), describe_address(address),
                                         port_.map().name(owner)));
}

void memory_server_node::on_message(sim_event& ev) {
  const bool is_read = ev.kind == kind_of(pipe_kind::mem_read);
  if (!is_read && ev.kind != kind_of(pipe_kind::mem_write))
    throw std::runtime_error(fmt::format(
      "{}: unexpected message kind {} (expected mem_read or mem_write)",
      node_name(), ev.kind));
  check_address(ev.arg0);
  const mem_tag tag = mem_tag::unpack(ev.arg1);
  const uint32_t back =
    port_.link_toward(id(), tag.requester, [this](node_id n) { return find_link_to(n); });
  outgoing m;
  m.arg0 = ev.arg0;
  m.arg1 = ev.arg1;
  if (is_read) {
    const memory_reply r = server_.read(ev.t, tag.length);
    m.kind = kind_of(pipe_kind::mem_data);
    m.bytes = tag.length;
    m.head = r.head;
    m.tail = r.tail;
  } else {
    if (ev.bytes != tag.length)
      throw std::runtime_error(fmt::format(
        "{}: write to {} carries {} bytes but its tag says {}", node_name(),
        describe_address(ev.arg0), ev.bytes, tag.length));
    const memory_reply r = server_.write(ev.t, ev.tail, tag.length);
    m.kind = kind_of(pipe_kind::mem_ack);
    m.head = r.head;
  }
  send_on(back, std::move(m));
}

void memory_server_node::on_finish() {
  add_figure(prefix_ + "busy_ps", server_.busy_ps());
  add_figure(prefix_ + "read_bytes", server_.read_bytes());
  add_figure(prefix_ + "write_bytes", server_.write_bytes());
  add_figure(prefix_ + "requests", server_.requests());
}

} // namespace kb::detail
