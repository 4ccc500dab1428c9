#pragma once
// XBAR: the crossbar between a cube's PE_DMAs and its HBM (DESIGN §4), also
// joined to the cube's NOC so that remote traffic reaches the HBM. A
// forwarder: no contention of its own, it adds `latency_ns` to the head and
// tail of every request and reply and sends it on by the fabric routes.

#include "actors/detail/forwarder.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

namespace kb {

class xbar final : public detail::forwarder_node {
public:
  struct config {
    SimTime latency = ns(2); ///< added to head and tail
    std::shared_ptr<const fabric_map> fabric;
    /// Credits on links to other forwarders (topology `fabric_credits`).
    bool credits = false;
  };
  static constexpr fabric_kind fabric{fabric_role::forwarder};

  static const impl_decl<config>& decl();
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): head and tail leave `latency` after they arrive.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  xbar(caf::actor_config& cfg, node_init init, config c);
};

} // namespace kb
