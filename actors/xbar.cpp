#include "actors/xbar.hpp"

#include "runtime/config/topology_spec.hpp"

namespace kb {

kind_doc xbar::doc() {
  return {"xbar",
          "crossbar between a cube's PE_DMAs, its HBM and its NOC: no contention, "
          "adds its latency to head and tail, forwards by the fabric routes",
          {{"latency_ns", "ns", "2", "added to a message's head and tail"}}};
}

xbar::config xbar::read_config(const param_reader& p, const machine_context& ctx) {
  config c;
  c.latency = p.required<SimTime>("latency_ns");
  c.fabric = ctx.fabric;
  c.credits = ctx.topology && ctx.topology->fabric_credits;
  return c;
}

xbar::xbar(caf::actor_config& cfg, node_init init, config c)
  : forwarder_node(cfg, std::move(init), c.latency, std::move(c.fabric),
                   c.credits) {}

service_time_fn xbar::service_time(const config& c, const machine_context&) {
  return detail::forwarder_service_time(c.latency);
}

} // namespace kb
