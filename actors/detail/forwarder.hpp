#pragma once
// The memory-request forwarding shared by xbar and noc (DESIGN §4): no
// contention of its own, adds a fixed latency to head and tail. Requests
// (mem_read / mem_write) go toward the memory that owns their address,
// replies (mem_data / mem_ack) toward the requester named in the mem_tag,
// both by the fabric routes built with the machine (fabric_map). Memory
// traffic uses no queue (no credits). A NOC also carries kernel launches
// from its cube's M_CPU to the PE_CPUs and their completions back.

#include "actors/detail/fabric_port.hpp"
#include "actors/detail/names.hpp"
#include "runtime/address.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/service_time.hpp"

#include <string>

namespace kb::detail {

/// A forwarder's declared service (ADR-0007): head and tail leave `latency`
/// after they arrive (XBAR, NOC, PE_MMU).
service_time_fn forwarder_service_time(SimTime latency);

class forwarder_node : public node {
public:
  forwarder_node(caf::actor_config& cfg, node_init init, SimTime latency,
                 std::shared_ptr<const fabric_map> fabric);

protected:
  /// Any message other than a memory request or reply; default: an error.
  virtual void on_other(sim_event& ev);

  void on_message(sim_event& ev) override;
  void on_finish() override;

  SimTime latency() const { return latency_; }
  uint64_t requests() const { return requests_; }

private:
  void forward(node_id toward, sim_event& ev);
  /// A kernel launch (to a PE_CPU) or completion (to the M_CPU) of the cube.
  void forward_in_cube(sim_event& ev);
  /// Sends `ev` on over `link`, its head and tail later by this latency.
  void pass_on(uint32_t link, sim_event& ev);

  SimTime latency_;
  fabric_port port_;
  uint64_t requests_ = 0;
  uint64_t replies_ = 0;
};

} // namespace kb::detail
