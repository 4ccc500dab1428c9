#include "actors/hbm_ctrl.hpp"

#include <algorithm>

namespace kb {

const impl_decl<hbm_ctrl::config>& hbm_ctrl::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "hbm_ctrl",
    "aggregated HBM: one request at a time in arrival order, busy xfer(bytes, bandwidth); "
    "replies leave after the access latency",
    {param(&config::bandwidth, "bandwidth_gbps", "transfer bandwidth").init(Bandwidth::gbps(512)),
     param(&config::latency, "latency_ns", "access latency added to every reply").init(ns(100))}}
      .reports(memory_stats.all());
  return d;
}

hbm_ctrl::config hbm_ctrl::read_config(const param_reader& p,
                                       const machine_context& ctx) {
  config c = decl().read(p);
  c.fabric = ctx.fabric;
  c.deploy = ctx.deploy;
  return c;
}

hbm_ctrl::hbm_ctrl(caf::actor_config& cfg, node_init init, config c)
  : memory_server_node(cfg, std::move(init), {c.bandwidth, c.latency},
                       std::move(c.fabric), std::move(c.deploy)) {}

service_time_fn hbm_ctrl::service_time(const config& c, const machine_context&) {
  return detail::memory_service_time({c.bandwidth, c.latency});
}

} // namespace kb
