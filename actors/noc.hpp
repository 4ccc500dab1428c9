#pragma once
// NOC: the cube network between PE_DMAs, PE_CPUs, the shared SRAM, M_CPU and
// the UCIe ports (DESIGN §2, §4). Modelled so far: memory requests for the
// SRAM of its own cube go to `<cube>.sram` and replies back to the
// requester, each with `forward_latency_ns` added to head and tail (no
// contention of its own). Kernel launches and UCIe routing arrive later.

#include "actors/detail/forwarder.hpp"
#include "runtime/config/kind_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"

#include <optional>

namespace kb {

class noc final : public detail::forwarder_node {
public:
  struct config {
    SimTime forward_latency = ns(4); ///< added to head and tail
  };
  static kind_doc doc();
  static config read_config(const param_reader& p, const machine_context& ctx);

  noc(caf::actor_config& cfg, node_init init, config c);

protected:
  /// SRAM addresses of this cube go to `<cube>.sram`; other destinations
  /// (remote cubes over UCIe, ...) are not modelled yet.
  uint32_t request_link(const global_address& address) override;

private:
  std::optional<uint32_t> sram_link_;
};

} // namespace kb
