#pragma once
// SRAM: a cube's shared SRAM (DESIGN §4), the same FIFO server as HBM_CTRL
// (detail::memory_server) with its own defaults. Serves mem_read /
// mem_write for the SRAM of its own cube, replying to the sender (the NOC).

#include "actors/detail/memory_server.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"

namespace kb {

class sram final : public detail::memory_server_node {
public:
  struct config {
    Bandwidth bandwidth = Bandwidth::gbps(512);
    SimTime latency = ns(20); ///< added to every reply
    std::shared_ptr<const fabric_map> fabric;
    std::shared_ptr<const memory_image> deploy; ///< the host's initial contents
  };
  static constexpr fabric_kind fabric{fabric_role::memory, mem_space::sram};
  static const impl_decl<config>& decl();
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): an idle memory server.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  sram(caf::actor_config& cfg, node_init init, config c);
};

} // namespace kb
