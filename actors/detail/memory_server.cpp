#include "actors/detail/memory_server.hpp"

#include "actors/detail/names.hpp"
#include "messages/memory.capnp.h"
#include "runtime/data/tensor.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb::detail {

// -- memory_server -------------------------------------------------------------

SimTime memory_server::start(SimTime head, SimTime tail, SimTime x) {
  const SimTime s = std::max(head, free_);
  last_start_ = s;
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

memory_rmw memory_server::atomic(SimTime head, SimTime tail, uint64_t length) {
  const SimTime x = xfer(length, timing_.bandwidth);
  const SimTime s = start(head, tail, x + x);
  read_bytes_ += length;
  write_bytes_ += length;
  return {s, free_ + timing_.latency};
}

service_time_fn memory_service_time(memory_timing t) {
  return [t](const service_request& r) {
    memory_server idle(t);
    const memory_reply m =
      r.write ? idle.write(r.in.head, r.in.tail, r.bytes) : idle.read(r.in.head, r.bytes);
    return crossing{m.head, m.tail};
  };
}

// -- memory_server_node --------------------------------------------------------

memory_server_node::memory_server_node(caf::actor_config& cfg, node_init init,
                                       memory_timing timing,
                                       std::shared_ptr<const fabric_map> fabric,
                                       std::shared_ptr<const memory_image> deploy,
                                       const memory_stat_set& stats, uint32_t hop_slots)
  : node(cfg, std::move(init)), server_(timing), port_(std::move(fabric), hop_slots),
    stats_(stats) {
  if (!deploy)
    return;
  // Keep the generated ranges (inputs made when read, docs/adr/0028) and
  // the deployed pages this node owns (memories are laid out in ranges
  // far larger than a page, so a page belongs to the owner of its ends).
  deploy->for_each_range([&](uint64_t at, uint64_t length, const auto& source, uint64_t first) {
    if (port_.map().memory_of(at) == id())
      image_.generate(at, length, source, first);
  });
  deploy->for_each_page([&](uint64_t at, std::span<const uint8_t> page) {
    const uint64_t last = at + (page.size() - 1);
    if (port_.map().memory_of(at) == id() || port_.map().memory_of(last) == id())
      image_.write(at, page);
  });
}

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
  if (!is_read && !ev.body.empty() && ev.body.root<wire::MemAccess>().getMark()) {
    // A PE_CPU's notice that a compute result fills these bytes: marked,
    // not served (it takes no time and gets no reply).
    auto a = ev.body.root<wire::MemAccess>();
    pending_.add(pending_writes::bytes_block(ev.arg0, 1, tag.length, tag.length),
                 {tag.requester, a.getCommand(), a.getWho().cStr()});
    return;
  }
  const uint32_t back =
    port_.link_toward(id(), tag.requester, [this](node_id n) { return find_link_to(n); });
  serving_ = {0, ev.kind, ev.arg0, tag.requester, tag.length};
  if (!is_read && !ev.body.empty() && ev.body.root<wire::MemAccess>().getAtomic()) {
    serve_atomic_request(ev, back);
    return;
  }
  outgoing m;
  m.arg0 = ev.arg0;
  m.arg1 = ev.arg1;
  if (!ev.body.empty())
    serve_data(ev, is_read, m);
  if (is_read) {
    const memory_reply r = serve_read(ev.t, ev.arg0, tag.length);
    m.kind = kind_of(pipe_kind::mem_data);
    m.bytes = tag.length;
    m.head = r.head;
    m.tail = r.tail;
  } else {
    if (ev.bytes != tag.length)
      throw std::runtime_error(fmt::format(
        "{}: write to {} carries {} bytes but its tag says {}", node_name(),
        describe_address(ev.arg0), ev.bytes, tag.length));
    const memory_reply r = serve_write(ev.t, ev.tail, ev.arg0, tag.length);
    m.kind = kind_of(pipe_kind::mem_ack);
    m.head = r.head;
  }
  send_on(back, std::move(m));
}

void memory_server_node::serve_data(const sim_event& ev, bool is_read, outgoing& reply) {
  auto a = ev.body.root<wire::MemAccess>();
  const uint64_t rows = a.getRows(), row_bytes = a.getRowBytes(), stride = a.getStride();
  const std::string who = a.hasWho() ? fmt::format(" (kernel {})", a.getWho().cStr()) : "";
  const uint64_t length = mem_tag::unpack(ev.arg1).length;
  if (rows * row_bytes != length || (rows > 1 && stride < row_bytes))
    throw std::runtime_error(fmt::format(
      "{}: a {} of {} rows of {} B every {} B at {}{} does not match its {} B request",
      node_name(), is_read ? "load" : "store", rows, row_bytes, stride,
      describe_address(ev.arg0), who, length));
  const uint64_t span = rows == 0 ? 0 : (rows - 1) * stride + row_bytes;
  const uint64_t last = span == 0 ? ev.arg0 : ev.arg0 + (span - 1);
  if (last < ev.arg0 || port_.find_memory(last) != id())
    throw std::runtime_error(fmt::format(
      "{}: a {} of {} B from {}{} runs past the end of this memory", node_name(),
      is_read ? "load" : "store", span, describe_address(ev.arg0), who));
  const tensor_view block = pending_writes::bytes_block(ev.arg0, rows, row_bytes, stride);
  const node_id requester = mem_tag::unpack(ev.arg1).requester;
  if (is_read) {
    if (!a.getWantData())
      return;
    auto msg = std::make_unique<capnp::MallocMessageBuilder>(64 + length / 8);
    auto r = msg->initRoot<wire::MemAccess>();
    r.setRows(a.getRows());
    r.setRowBytes(row_bytes);
    r.setStride(stride);
    if (const auto* p = pending_.find(block)) {
      // A compute result wrote (some of) these bytes: no data in Phase 1;
      // the loading kernel gets a pending tensor (docs/adr/0043).
      r.setPending(true);
      r.setWho(pending_writer(*p));
      reply.body = message_body{std::move(msg)};
      return;
    }
    auto data = r.initData(static_cast<unsigned>(length));
    image_.keep_generated(ev.arg0, span); // an input's block is loaded again and again
    image_.read_rows(ev.arg0, stride, rows, row_bytes, std::span<uint8_t>(data.begin(), data.size()));
    reply.body = message_body{std::move(msg)};
    ++data_reads_;
    return;
  }
  if (a.getPending()) { // a compute result: no bytes until Phase 2
    pending_.add(block, {requester, a.getCommand(), a.getWho().cStr()});
    return;
  }
  const auto data = a.getData();
  if (data.size() != length)
    throw std::runtime_error(fmt::format("{}: a store of {} B to {}{} carries {} B", node_name(),
                                         length, describe_address(ev.arg0), who, data.size()));
  // Visible from now on to every load that reaches this memory after it.
  pending_.clear(block);
  image_.write_rows(ev.arg0, stride, rows, row_bytes,
                    std::span<const uint8_t>(data.begin(), data.size()));
  ++data_writes_;
}

std::string memory_server_node::pending_writer(const pending_writes::writer& w) const {
  return fmt::format("command {} of kernel {} on {}", w.command, w.who,
                     parent_of(port_.map().name(w.requester)));
}

memory_reply memory_server_node::serve_read(SimTime head, uint64_t, uint64_t length) {
  const memory_reply r = server_.read(head, length);
  trace_span(server_, 0, length);
  return r;
}

memory_reply memory_server_node::serve_write(SimTime head, SimTime tail, uint64_t,
                                             uint64_t length) {
  const memory_reply r = server_.write(head, tail, length);
  trace_span(server_, 0, length);
  return r;
}

memory_rmw memory_server_node::serve_atomic(SimTime head, SimTime tail, uint64_t,
                                            uint64_t length) {
  const memory_rmw r = server_.atomic(head, tail, length);
  trace_span(server_, 0, length);
  return r;
}

void memory_server_node::trace_span(const memory_server& s, uint16_t channel, uint64_t bytes) {
  if (!traces_services())
    return;
  service_tag t = serving_;
  t.lane = channel;
  t.bytes = bytes;
  hook_service_span(s.last_start(), s.free_at(), t);
}

void memory_server_node::on_finish() {
  add_figure(stats_.busy_ps, server_.busy_ps());
  add_figure(stats_.read_bytes, server_.read_bytes());
  add_figure(stats_.write_bytes, server_.write_bytes());
  add_figure(stats_.requests, server_.requests());
  add_data_figures();
}

void memory_server_node::add_data_figures() {
  if (data_reads_ + data_writes_ > 0) {
    add_figure(stats_.data_reads, data_reads_);
    add_figure(stats_.data_writes, data_writes_);
  }
  if (atomics_ > 0)
    add_figure(stats_.atomics, atomics_);
}

} // namespace kb::detail
