#pragma once
// The sink behind a node's hook points (seed ADR-0020 D2). Each node owns its own
// recorder (no state is shared between actors); records come back with the
// node's end-of-run summary and are merged by key, so the output never
// depends on thread or process count.

#include "runtime/engine/summary_table.hpp"
#include "runtime/engine/event.hpp"

#include <string_view>
#include <vector>

namespace kb {

/// Trace event kinds of seed ADR-0014 D6.
enum class trace_kind : uint8_t {
  command_submitted,
  sub_command_dispatched,
  engine_start,
  engine_complete,
  tile_ready,
  command_complete,
  message_hop, ///< a message leaving a node (only when hops are traced)
  call_start,  ///< PE_CPU: the kernel (what = kernel_slice) or a wait of it begins;
               ///< the host: a program's launch (what = launch_slice)
  call_end,    ///< PE_CPU, the host: ... ends
  message_receive, ///< streams before version 2 only: now drawn from the hop
  service,     ///< a node serving from one time to another (a memory channel)
};

/// call_start/call_end `what`: a kernel wait_kind (0 load, 1 wait, 2 TCM;
/// context: the command waited for, 0 for several), or the kernel itself.
inline constexpr uint16_t kernel_slice = 0xff;
/// The host's call_start/call_end `what`: a program's launch, from its issue
/// to its completion (context: the launch's number; lane: a track of the
/// host no other launch holds meanwhile).
inline constexpr uint16_t launch_slice = 0xfe;

std::string_view to_string(trace_kind k);

/// What a unit is serving: enough to name it in a trace or op log.
struct service_tag {
  uint16_t lane = 0;      ///< lane/channel of the node (e.g. read channel)
  uint16_t what = 0;      ///< stage type or operation kind
  uint64_t item = 0;      ///< tile id (or request id)
  uint64_t context = 0;   ///< command id
  uint64_t bytes = 0;
};

/// A message hop: everything a trace draws of one message, its receipt
/// included (docs/adr/0040: a receipt is the hop seen from the receiver,
/// so it is not recorded twice). `seq` is the message's sequence number at
/// its sender (the engine's event key).
struct message_note {
  SimTime t;              ///< sent (the sender's now)
  node_id node = no_node; ///< the sender
  node_id peer = no_node; ///< the receiver
  SimTime head;           ///< its head arrives at the receiver (its event time)
  SimTime tail;           ///< its tail arrives
  uint64_t seq = 0;
  /// For a bounded input queue of the receiver (credits): the queue + 1,
  /// and the credits the sender has left for it after this message; 0 and
  /// 0 otherwise.
  uint16_t queue = 0;
  uint32_t credits = 0;
};

class recorder {
public:
  virtual ~recorder() = default;
  /// One event; `seq` orders same-time events of one node.
  virtual void record(trace_kind kind, SimTime t, node_id node,
                      const service_tag& tag) = 0;
  /// One message hop (only when wants_hops()). Tag: what = message kind,
  /// item/context = arg1/arg0, bytes.
  virtual void message(const message_note& m, const service_tag& tag) {
    (void)m, (void)tag;
  }
  /// A service of `node` from `begin` to `end`, known at `t` <= begin: a
  /// memory channel serving a request (tag: lane = the channel, what = the
  /// request's kind, item = its address, context = the requester's node
  /// id, bytes = those this channel serves).
  virtual void service(SimTime t, node_id node, SimTime begin, SimTime end,
                       const service_tag& tag) {
    (void)t, (void)node, (void)begin, (void)end, (void)tag;
  }
  /// Progress: the node has handled `n` more events, the last at `now`.
  /// Called every `progress_batch` events (for a heartbeat; never changes
  /// results).
  virtual void events(uint64_t n, SimTime now) { (void)n, (void)now; }
  static constexpr uint64_t progress_batch = 4096;
  /// Whether this recorder wants every message hop.
  virtual bool wants_hops() const { return false; }
  /// Whether it wants the services of units (engine_start, engine_complete
  /// and service spans). A node asks once: without them a stage's start and
  /// end cost nothing (the progress counters alone do not).
  virtual bool wants_services() const { return true; }
  /// The records so far, serialised; called once at the end.
  virtual std::vector<char> take_records() = 0;
  /// A table for the node's summary (the stage_tally_recorder's stage
  /// tallies; null: none); called once at the end.
  virtual std::shared_ptr<const summary_table> take_table() { return nullptr; }
};

} // namespace kb
