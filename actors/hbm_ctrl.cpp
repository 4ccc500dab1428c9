#include "actors/hbm_ctrl.hpp"

namespace kb {

kind_doc hbm_ctrl::doc() {
  return {"hbm_ctrl",
          "aggregated HBM: one request at a time in arrival order, busy "
          "xfer(bytes, bandwidth); replies leave after the access latency",
          {{"bandwidth_gbps", "GB/s", "512", "transfer bandwidth"},
           {"latency_ns", "ns", "100", "access latency added to every reply"}}};
}

hbm_ctrl::config hbm_ctrl::read_config(const param_reader& p,
                                       const machine_context&) {
  config c;
  c.bandwidth = p.required<Bandwidth>("bandwidth_gbps");
  c.latency = p.required<SimTime>("latency_ns");
  return c;
}

hbm_ctrl::hbm_ctrl(caf::actor_config& cfg, node_init init, config c)
  : memory_server_node(cfg, std::move(init), {c.bandwidth, c.latency},
                       mem_space::hbm) {}

} // namespace kb
