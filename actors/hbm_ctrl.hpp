#pragma once
// HBM_CTRL: the aggregated HBM of a cube (DESIGN §4), a FIFO server at
// `bandwidth_gbps` plus `latency_ns` (detail::memory_server). Serves
// mem_read / mem_write for the HBM of its own cube, replying to the sender.

#include "actors/detail/memory_server.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

namespace kb {

class hbm_ctrl final : public detail::memory_server_node {
public:
  struct config {
    Bandwidth bandwidth = Bandwidth::gbps(512);
    SimTime latency = ns(100); ///< added to every reply
    std::shared_ptr<const fabric_map> fabric;
    std::shared_ptr<const memory_image> deploy; ///< the host's initial contents
  };
  static constexpr fabric_kind fabric{fabric_role::memory, mem_space::hbm};
  static const impl_decl<config>& decl();
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): an idle HBM starts at the head; a read's data
  /// leaves with head s + latency and tail s + xfer + latency, a write's ack at
  /// max(s + xfer, tail) + latency.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  hbm_ctrl(caf::actor_config& cfg, node_init init, config c);
};

} // namespace kb
