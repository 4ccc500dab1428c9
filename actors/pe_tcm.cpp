#include "actors/pe_tcm.hpp"

#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

const impl_decl<pe_tcm::config>& pe_tcm::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "pe_tcm",
    "scratchpad: serves fetch/store requests one at a time, FIFO, for xfer(bytes, bandwidth) "
    "each",
    {param(&config::bandwidth, "bandwidth_gbps",
           "fetch/store bandwidth between TCM and register file")
       .init(Bandwidth::gbps(512)),
     param(&config::dma_bandwidth, "dma_bandwidth_gbps",
           "bandwidth of the DMA port that serves other PEs' DMA reads and writes")
       .init(Bandwidth::gbps(512)),
     param(&config::dma_latency, "dma_latency_ns",
           "access latency of the DMA port, added to every reply")
       .init(SimTime::zero()),
     param(&config::size_kib, "size_kib", "capacity (kernels allocate tensors from it)")
       .init(uint64_t{4096}),
     param(&config::scheduler_reserved_kib, "scheduler_reserved_kib",
           "SchedulerReservedTCM: the buffers of the tiles in flight never exceed it "
           "(docs/adr/0031-tcm-capacity.md); kernels allocate from the rest (AllocatableTCM)")
       .init(uint64_t{2560})}}
      .reports(std::array{stat_busy_ps, stat_bytes, stat_requests})
      .reports(tcm_dma_stats.all());
  return d;
}

pe_tcm::config pe_tcm::read_config(const param_reader& p,
                                   const machine_context& ctx) {
  config c = decl().read(p);
  if (c.scheduler_reserved_kib > c.size_kib)
    throw p.error("scheduler_reserved_kib",
                  "exceeds size_kib: the scheduler cannot reserve more TCM than there is");
  c.fabric = ctx.fabric;
  c.deploy = ctx.deploy;
  return c;
}

pe_tcm::pe_tcm(caf::actor_config& cfg, node_init init, config c)
  : memory_server_node(cfg, std::move(init), {c.dma_bandwidth, c.dma_latency}, c.fabric,
                       c.deploy, tcm_dma_stats, detail::fabric_port::local_hops),
    cfg_(std::move(c)) {}

void pe_tcm::on_message(sim_event& ev) {
  if (is_request(ev)) { // the DMA port
    memory_server_node::on_message(ev);
    return;
  }
  if (ev.kind != kind_of(pipe_kind::tcm_request))
    throw std::runtime_error(fmt::format(
      "{}: unexpected message kind {} (expected tcm_request, mem_read or mem_write)", node_name(),
      ev.kind));
  if (ev.src != back_to_) { // its own fetch/store unit, nearly always
    const auto back = find_link_to(ev.src);
    if (!back)
      throw std::runtime_error(fmt::format(
        "{}: no link back to the sender (node #{}) of a TCM request",
        node_name(), ev.src));
    back_to_ = ev.src;
    back_link_ = *back;
  }
  const SimTime s = std::max(now(), free_);
  free_ = s + xfer(ev.arg0, cfg_.bandwidth);
  busy_ps_ += (free_ - s).ps();
  bytes_ += ev.arg0;
  ++requests_;
  outgoing m;
  m.kind = kind_of(pipe_kind::tcm_reply);
  m.head = free_;
  m.arg0 = ev.arg0;
  m.arg1 = ev.arg1;
  send_on(back_link_, std::move(m));
}

void pe_tcm::on_finish() {
  memory_server_node::on_finish();
  add_figure(stat_busy_ps, busy_ps_);
  add_figure(stat_bytes, bytes_);
  add_figure(stat_requests, requests_);
}

service_time_fn pe_tcm::service_time(const config& c, const machine_context&) {
  // A fetch/store request (from the stage's unit) or, over the fabric (no
  // stage), another PE's DMA at the DMA port.
  service_time_fn dma_port = detail::memory_service_time({c.dma_bandwidth, c.dma_latency});
  return [c, dma_port](const service_request& r) {
    if (!r.s)
      return dma_port(r);
    const SimTime reply = r.in.head + xfer(r.bytes, c.bandwidth);
    return crossing{reply, reply};
  };
}

} // namespace kb
