#pragma once
// The memory-request forwarding shared by xbar and noc (DESIGN §4): no
// contention of its own, adds a fixed latency to head and tail. Requests
// (mem_read / mem_write) go to the link a kind picks for their address;
// replies (mem_data / mem_ack) go back to the requester named in the
// mem_tag. Memory traffic uses no queue (no credits).

#include "actors/detail/names.hpp"
#include "runtime/address.hpp"
#include "runtime/engine/node.hpp"

#include <string>

namespace kb::detail {

class forwarder_node : public node {
public:
  forwarder_node(caf::actor_config& cfg, node_init init, SimTime latency);

protected:
  /// The output link for a request to `address`; throws a clear error for an
  /// address this node cannot route.
  virtual uint32_t request_link(const global_address& address) = 0;
  /// Any message other than a memory request or reply; default: an error.
  virtual void on_other(sim_event& ev);

  void on_message(sim_event& ev) override;
  void on_finish() override;

  /// "sipS.cubeC": the cube this node belongs to.
  const std::string& cube() const { return cube_; }
  /// Whether address `a` lies in this node's cube.
  bool in_cube(const global_address& a) const { return cube_id_.holds(a); }
  SimTime latency() const { return latency_; }

private:
  void forward(uint32_t link, const sim_event& ev);

  SimTime latency_;
  std::string cube_;
  cube_id cube_id_;
  uint64_t requests_ = 0;
  uint64_t replies_ = 0;
};

} // namespace kb::detail
