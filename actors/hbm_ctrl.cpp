#include "actors/hbm_ctrl.hpp"

#include <algorithm>

namespace kb {

kind_doc hbm_ctrl::doc() {
  return {"hbm_ctrl",
          "aggregated HBM: one request at a time in arrival order, busy "
          "xfer(bytes, bandwidth); replies leave after the access latency",
          {{"bandwidth_gbps", "GB/s", "512", "transfer bandwidth (of all channels together)"},
           {"latency_ns", "ns", "100", "access latency added to every reply"},
           {"channels", "uint", "1",
            "channels (impl hbm_ctrl_channels_v1; hbm_ctrl_v1 takes 1), each a FIFO "
            "server at bandwidth / channels"},
           {"interleave_bytes", "uint", "256",
            "address interleaving granule over the channels (hbm_ctrl_channels_v1)"}}};
}

hbm_ctrl::config hbm_ctrl::read_config(const param_reader& p,
                                       const machine_context& ctx) {
  config c;
  c.bandwidth = p.required<Bandwidth>("bandwidth_gbps");
  c.latency = p.required<SimTime>("latency_ns");
  c.fabric = ctx.fabric;
  c.deploy = ctx.deploy;
  if (p.required<uint32_t>("channels") != 1)
    throw p.error("channels", "hbm_ctrl_v1 is the aggregated model (1 channel); use impl "
                              "hbm_ctrl_channels_v1 for more");
  return c;
}

hbm_ctrl::hbm_ctrl(caf::actor_config& cfg, node_init init, config c)
  : memory_server_node(cfg, std::move(init), {c.bandwidth, c.latency},
                       std::move(c.fabric), std::move(c.deploy)) {}

service_time_fn hbm_ctrl::service_time(const config& c, const machine_context&) {
  return detail::memory_service_time({c.bandwidth, c.latency});
}

} // namespace kb
