#include "actors/xbar.hpp"

#include "runtime/config/topology_spec.hpp"

namespace kb {

const impl_decl<xbar::config>& xbar::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "xbar",
    "crossbar between a cube's PE_DMAs, its HBM and its NOC: no contention, adds its latency "
    "to head and tail, forwards by the fabric routes",
    {param(&config::latency, "latency_ns", "added to a message's head and tail").init(ns(2))}}
      .reports(detail::forwarder_node::all_stats);
  return d;
}

xbar::config xbar::read_config(const param_reader& p, const machine_context& ctx) {
  config c = decl().read(p);
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
