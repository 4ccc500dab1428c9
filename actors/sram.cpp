#include "actors/sram.hpp"

namespace kb {

kind_doc sram::doc() {
  return {"sram",
          "shared SRAM: one request at a time in arrival order, busy "
          "xfer(bytes, bandwidth); replies leave after the access latency",
          {{"bandwidth_gbps", "GB/s", "512", "transfer bandwidth"},
           {"latency_ns", "ns", "20", "access latency added to every reply"}}};
}

sram::config sram::read_config(const param_reader& p, const machine_context& ctx) {
  config c;
  c.bandwidth = p.required<Bandwidth>("bandwidth_gbps");
  c.latency = p.required<SimTime>("latency_ns");
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
