#pragma once
// NOC: the cube network between PE_DMAs, PE_CPUs, PE_TCMs, the shared SRAM,
// M_CPU, the XBAR and the UCIe and inter-SIP links (DESIGN §2, §4 Fabric). A
// forwarder: no contention of its own, it adds `forward_latency_ns` to the
// head and tail of every request and reply and sends it on by the fabric
// routes (each port a link with its own latency and bandwidth).

#include "actors/detail/forwarder.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

namespace kb {

class noc final : public detail::forwarder_node {
public:
  struct config {
    SimTime forward_latency = ns(4); ///< added to head and tail
    std::shared_ptr<const fabric_map> fabric;
    /// Credits on links to other forwarders (topology `fabric_credits`).
    bool credits = false;
  };
  static constexpr fabric_kind fabric{fabric_role::forwarder};

  static const impl_decl<config>& decl();
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): head and tail leave
  /// `forward_latency` after they arrive.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  noc(caf::actor_config& cfg, node_init init, config c);
};

} // namespace kb
