#include "actors/sram.hpp"

namespace kb {

const impl_decl<sram::config>& sram::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "sram",
    "shared SRAM: one request at a time in arrival order, busy xfer(bytes, bandwidth); replies "
    "leave after the access latency",
    {param(&config::bandwidth, "bandwidth_gbps", "transfer bandwidth").init(Bandwidth::gbps(512)),
     param(&config::latency, "latency_ns", "access latency added to every reply").init(ns(20))}}
      .reports(memory_stats.all());
  return d;
}

sram::config sram::read_config(const param_reader& p, const machine_context& ctx) {
  config c = decl().read(p);
  c.fabric = ctx.fabric;
  c.deploy = ctx.deploy;
  return c;
}

service_time_fn sram::service_time(const config& c, const machine_context&) {
  return detail::memory_service_time({c.bandwidth, c.latency});
}

sram::sram(caf::actor_config& cfg, node_init init, config c)
  : memory_server_node(cfg, std::move(init), {c.bandwidth, c.latency},
                       std::move(c.fabric), std::move(c.deploy)) {}

} // namespace kb
