#pragma once
// An output link of a node: latency, optional bandwidth, the cut-through
// head/tail rule (DESIGN §4), and credits per receiving queue.

#include "runtime/engine/event.hpp"
#include "runtime/engine/event_fifo.hpp"

#include <optional>
#include <vector>

namespace kb {

/// Static description of a link, as built from the topology.
struct link_spec_rt {
  node_id src = no_node;
  node_id dst = no_node;
  SimTime latency;                ///< >= 1 ps (the lookahead it offers)
  std::optional<Bandwidth> bw;    ///< none: no serialisation on the link
  uint32_t depth = 0;             ///< credits per receiving queue; 0: unbounded
};

/// When a message crosses a link: its head and tail arrival times.
struct crossing {
  SimTime head;
  SimTime tail;
};

/// Runtime state of one output link, owned by the sending node.
class out_link {
public:
  explicit out_link(const link_spec_rt& spec) : spec_(spec) {}

  const link_spec_rt& spec() const { return spec_; }

  /// Cut-through rule: a message whose head is ready at `h` and tail at `tau`
  /// (tau >= h) carrying `bytes` starts at s = max(h, F), its tail leaves at
  /// max(s + xfer(bytes, bw), tau); F becomes that tail. It arrives with head
  /// s + latency and tail tail + latency. A link without bandwidth is a pure
  /// wire: head h + latency, tail tau + latency, no FIFO coupling.
  crossing cross(SimTime h, SimTime tau, uint64_t bytes);

  /// Time the last tail left the sender end (F).
  SimTime last_tail() const { return last_tail_; }

  // -- statistics ------------------------------------------------------------

  uint64_t bytes() const { return bytes_; }
  uint64_t messages() const { return messages_; }
  /// Time the link spent serialising payload (sum of xfer times).
  uint64_t busy_ps() const { return busy_ps_; }

  // -- credits ---------------------------------------------------------------

  bool bounded() const { return spec_.depth > 0; }
  /// True if a message for queue `q` may be sent now (spends nothing).
  bool has_credit(queue_id q) const;
  /// Credits left for queue `q`.
  uint32_t credits(queue_id q) const;
  void spend(queue_id q);
  void refund(queue_id q);

  /// Messages held for lack of credit, per queue, in send order.
  event_fifo& held(queue_id q);
  bool any_held() const;

private:
  struct credit_slot {
    queue_id queue;
    uint32_t credits;
    event_fifo held;
  };
  credit_slot& slot(queue_id q);
  const credit_slot* find(queue_id q) const;

  link_spec_rt spec_;
  SimTime last_tail_;
  uint64_t bytes_ = 0;
  uint64_t messages_ = 0;
  uint64_t busy_ps_ = 0;
  std::vector<credit_slot> slots_;
};

} // namespace kb
