#pragma once
// XBAR: the crossbar between a cube's PE_DMAs and its HBM (DESIGN §4). No
// contention of its own: it adds `latency_ns` to the head and tail of every
// request (PE_DMA -> `<cube>.hbm`) and reply (HBM -> the requester).

#include "actors/detail/forwarder.hpp"
#include "runtime/config/kind_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

#include <optional>

namespace kb {

class xbar final : public detail::forwarder_node {
public:
  struct config {
    SimTime latency = ns(2); ///< added to head and tail
  };
  static kind_doc doc();
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): head and tail leave `latency` after they arrive.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  xbar(caf::actor_config& cfg, node_init init, config c);

protected:
  /// HBM addresses of this cube go to `<cube>.hbm`; anything else is an error.
  uint32_t request_link(const global_address& address) override;

private:
  std::optional<uint32_t> hbm_link_;
};

} // namespace kb
