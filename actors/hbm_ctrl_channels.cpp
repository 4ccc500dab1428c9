#include "actors/hbm_ctrl_channels.hpp"
#include "runtime/machine/memory_stats.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kb {

const impl_decl<hbm_ctrl_channels::config>& hbm_ctrl_channels::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "hbm_ctrl",
    "per-channel HBM: `channels` FIFO servers at bandwidth / channels, addresses interleaved "
    "over them in granules of interleave_bytes; replies leave after the access latency",
    {param(&config::bandwidth, "bandwidth_gbps", "transfer bandwidth of all channels together")
       .init(Bandwidth::gbps(512)),
     param(&config::latency, "latency_ns", "access latency added to every reply").init(ns(100)),
     param(&config::channels, "channels", "FIFO servers, each at bandwidth / channels")
       .init(1u)
       .at_least(1u, "must be from 1 to 1024")
       .at_most(1024u, "must be from 1 to 1024"),
     param(&config::granule, "interleave_bytes", "address interleaving granule over the channels")
       .init(uint64_t{256})
       .at_least(1u, "must be from 1 byte to 64 GiB")
       .at_most(global_address::max_offset, "must be from 1 byte to 64 GiB")}}
      .reports(memory_stats.all())
      .reports(std::array{hbm_channel_busy_ps});
  return d;
}

hbm_ctrl_channels::config hbm_ctrl_channels::read_config(const param_reader& p,
                                                         const machine_context& ctx) {
  config c = decl().read(p);
  c.fabric = ctx.fabric;
  c.deploy = ctx.deploy;
  if (c.bandwidth.mbps / c.channels == 0)
    throw p.error("bandwidth_gbps", fmt::format("{} MB/s over {} channels leaves a channel "
                                                "less than 1 MB/s",
                                                c.bandwidth.mbps, c.channels));
  return c;
}

hbm_ctrl_channels::hbm_ctrl_channels(caf::actor_config& cfg, node_init init, config c)
  : memory_server_node(cfg, std::move(init), {c.bandwidth, c.latency}, c.fabric, c.deploy), cfg_(c) {
  const detail::memory_timing per{Bandwidth{c.bandwidth.mbps / c.channels}, c.latency};
  ch_.assign(c.channels, detail::memory_server(per));
}

service_time_fn hbm_ctrl_channels::service_time(const config& c, const machine_context&) {
  const service_time_fn one =
    detail::memory_service_time({Bandwidth{c.bandwidth.mbps / c.channels}, c.latency});
  return [one, channels = c.channels, granule = c.granule](const service_request& r) {
    service_request busiest = r;
    busiest.bytes = bytes_on(0, r.bytes, 0, channels, granule);
    return one(busiest);
  };
}

uint64_t hbm_ctrl_channels::bytes_on(uint64_t offset, uint64_t length, uint32_t ch,
                                     uint32_t channels, uint64_t granule) {
  // Bytes of [0, x) on channel ch: whole rounds of all channels, then the
  // part of the last round that falls in ch's granule.
  auto below = [&](uint64_t x) {
    const uint64_t round = granule * channels;
    const uint64_t rem = x % round, start = uint64_t{ch} * granule;
    return x / round * granule + (rem > start ? std::min(rem - start, granule) : 0);
  };
  return below(offset + length) - below(offset);
}

detail::memory_reply hbm_ctrl_channels::serve_read(SimTime head, uint64_t address,
                                                   uint64_t length) {
  const uint64_t offset = global_address::decode(address).offset;
  detail::memory_reply out{SimTime::infinity(), SimTime::zero()};
  for (uint32_t c = 0; c < cfg_.channels; ++c) {
    const uint64_t b = bytes_on(offset, length, c, cfg_.channels, cfg_.granule);
    if (b == 0)
      continue;
    const detail::memory_reply r = ch_[c].read(head, b);
    trace_span(ch_[c], static_cast<uint16_t>(c), b);
    out.head = std::min(out.head, r.head);
    out.tail = std::max(out.tail, r.tail);
  }
  if (length == 0) { // an empty read: served by its address's channel
    const uint32_t c = static_cast<uint32_t>(offset / cfg_.granule % cfg_.channels);
    out = ch_[c].read(head, 0);
    trace_span(ch_[c], static_cast<uint16_t>(c), 0);
  }
  read_bytes_ += length;
  ++requests_;
  return out;
}

detail::memory_reply hbm_ctrl_channels::serve_write(SimTime head, SimTime tail,
                                                    uint64_t address, uint64_t length) {
  const uint64_t offset = global_address::decode(address).offset;
  SimTime ack = SimTime::zero();
  for (uint32_t c = 0; c < cfg_.channels; ++c) {
    const uint64_t b = bytes_on(offset, length, c, cfg_.channels, cfg_.granule);
    if (b != 0) {
      ack = std::max(ack, ch_[c].write(head, tail, b).head);
      trace_span(ch_[c], static_cast<uint16_t>(c), b);
    }
  }
  if (length == 0) {
    const uint32_t c = static_cast<uint32_t>(offset / cfg_.granule % cfg_.channels);
    ack = ch_[c].write(head, tail, 0).head;
    trace_span(ch_[c], static_cast<uint16_t>(c), 0);
  }
  write_bytes_ += length;
  ++requests_;
  return {ack, ack};
}

detail::memory_rmw hbm_ctrl_channels::serve_atomic(SimTime head, SimTime tail,
                                                   uint64_t address, uint64_t length) {
  const uint64_t offset = global_address::decode(address).offset;
  detail::memory_rmw out{SimTime::infinity(), SimTime::zero()};
  for (uint32_t c = 0; c < cfg_.channels; ++c) {
    const uint64_t b = bytes_on(offset, length, c, cfg_.channels, cfg_.granule);
    if (b == 0)
      continue;
    const detail::memory_rmw r = ch_[c].atomic(head, tail, b);
    trace_span(ch_[c], static_cast<uint16_t>(c), b);
    out.start = std::min(out.start, r.start);
    out.ack = std::max(out.ack, r.ack);
  }
  if (length == 0) {
    const uint32_t c = static_cast<uint32_t>(offset / cfg_.granule % cfg_.channels);
    out = ch_[c].atomic(head, tail, 0);
    trace_span(ch_[c], static_cast<uint16_t>(c), 0);
  }
  read_bytes_ += length;
  write_bytes_ += length;
  ++requests_;
  return out;
}

void hbm_ctrl_channels::on_finish() {
  uint64_t busy = 0;
  for (uint32_t c = 0; c < cfg_.channels; ++c) {
    add_figure(hbm_channel_busy_ps, std::to_string(c), ch_[c].busy_ps());
    busy += ch_[c].busy_ps();
  }
  add_figure(memory_stats.busy_ps, busy / cfg_.channels);
  add_figure(memory_stats.read_bytes, read_bytes_);
  add_figure(memory_stats.write_bytes, write_bytes_);
  add_figure(memory_stats.requests, requests_);
  add_data_figures();
}

} // namespace kb
