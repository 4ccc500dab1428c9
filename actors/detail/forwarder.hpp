#pragma once
// The memory-request forwarding shared by xbar and noc (DESIGN §4): no
// contention of its own, adds a fixed latency to head and tail. Requests
// (mem_read / mem_write) go toward the memory that owns their address,
// replies (mem_data / mem_ack) toward the requester named in the mem_tag,
// both by the fabric routes built with the machine (fabric_map). A NOC
// also carries kernel launches from its cube's M_CPU to the PE_CPUs and
// their completions back.
//
// Credits (docs/adr/0033-fabric-credits.md): by default memory traffic uses
// no queue (no credits). With `credits`, a message whose next hop is
// another forwarder (not its destination) goes to that forwarder's input
// queue for this sender (queue id = the sender's node id), so the link's
// queue_depth bounds it. A message that finds that link without credit is
// held there, in order; the input it came from is not read again until it
// has left (on_unblocked), so that input's queue fills and holds back its
// own sender in turn.

#include "actors/detail/fabric_port.hpp"
#include "actors/detail/names.hpp"
#include "runtime/address.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/service_time.hpp"
#include "runtime/stat_decl.hpp"

#include <array>

#include <deque>
#include <string>
#include <vector>

namespace kb::detail {

/// A forwarder's declared service (ADR-0007): head and tail leave `latency`
/// after they arrive (XBAR, NOC, PE_MMU).
service_time_fn forwarder_service_time(SimTime latency);

class forwarder_node : public node {
public:
  forwarder_node(caf::actor_config& cfg, node_init init, SimTime latency,
                 std::shared_ptr<const fabric_map> fabric, bool credits = false,
                 uint32_t hop_slots = fabric_port::shared_hops);

protected:
  /// Any message other than a memory request or reply; default: an error.
  virtual void on_other(sim_event& ev);

  void on_message(sim_event& ev) override;
  void on_queue_arrival(queue_id q) override;
  void on_unblocked(uint32_t link, queue_id q) override;
  void on_finish() override;

  SimTime latency() const { return latency_; }
  /// What a forwarder reports (ADR-0038).
  static constexpr stat_decl stat_requests =
    declare_stat("forwarder", "requests", stat_unit::count, "requests forwarded");
  static constexpr stat_decl stat_replies =
    declare_stat("forwarder", "replies", stat_unit::count, "replies forwarded");
  static constexpr stat_decl stat_held_for_credit = declare_stat(
    "forwarder", "held_for_credit", stat_unit::count, "messages held for a credit (ADR-0033)");
  static constexpr std::array<stat_decl, 3> all_stats = {stat_requests, stat_replies,
                                                         stat_held_for_credit};

  uint64_t requests() const { return requests_; }

private:
  /// Routes a request or reply that came from input queue `from` (no_queue:
  /// a plain message); false when it was held for lack of credit.
  bool route(sim_event& ev, queue_id from);
  bool forward(node_id toward, sim_event& ev, queue_id from);
  /// A kernel launch (to a PE_CPU) or completion (to the M_CPU) of the cube.
  void forward_in_cube(sim_event& ev);
  /// The link to PE `pe`'s PE_CPU (launch) or to the cube's M_CPU: found
  /// by name the first time, then read from `cube_links_`.
  uint32_t in_cube_link(bool launch, uint64_t pe);
  /// Sends `ev` on over `link`, its head and tail later by this latency,
  /// into the receiver's queue `queue` (no_queue: a plain message).
  bool pass_on(uint32_t link, sim_event& ev, queue_id queue = no_queue,
               queue_id from = no_queue);
  /// Forwards the messages of input queue `q` until one is held.
  void drain(queue_id q);

  SimTime latency_;
  fabric_port port_;
  bool credits_;
  uint64_t requests_ = 0;
  uint64_t replies_ = 0;
  uint64_t held_ = 0; ///< messages that found their link without credit
  /// Per output link, the input queue of each message held on it, in order.
  std::vector<std::deque<queue_id>> held_from_;
  std::vector<char> stalled_; ///< per input queue: its last message is held
  /// The links of forward_in_cube: [0] to the M_CPU, [1 + p] to PE p's
  /// PE_CPU; no_link until first used.
  static constexpr uint32_t no_link = UINT32_MAX;
  std::vector<uint32_t> cube_links_;
};

} // namespace kb::detail
