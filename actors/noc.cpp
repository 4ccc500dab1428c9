#include "actors/noc.hpp"

#include "runtime/config/topology_spec.hpp"

namespace kb {

const impl_decl<noc::config>& noc::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "noc",
    "cube network: forwards memory requests and replies between PE_DMAs, PE_TCMs, the SRAM, "
    "the XBAR and the UCIe / inter-SIP links by the fabric routes, adding its latency to head "
    "and tail",
    {param(&config::forward_latency, "forward_latency_ns",
           "added to a forwarded message's head and tail")
       .init(ns(4))}}
      .reports(detail::forwarder_node::all_stats);
  return d;
}

noc::config noc::read_config(const param_reader& p, const machine_context& ctx) {
  config c = decl().read(p);
  c.fabric = ctx.fabric;
  c.credits = ctx.topology && ctx.topology->fabric_credits;
  return c;
}

noc::noc(caf::actor_config& cfg, node_init init, config c)
  : forwarder_node(cfg, std::move(init), c.forward_latency, std::move(c.fabric),
                   c.credits) {}

service_time_fn noc::service_time(const config& c, const machine_context&) {
  return detail::forwarder_service_time(c.forward_latency);
}

} // namespace kb
