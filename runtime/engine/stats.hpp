#pragma once
// Instrumentation counters of the engine.

#include <cstdint>

namespace kb {

/// Per node: events handled, messages sent to other nodes, activations
/// (windows in which the hub woke the node).
struct node_stats {
  uint64_t events = 0;
  uint64_t messages_sent = 0;
  uint64_t activations = 0;
  uint64_t last_event_ps = 0; ///< time of the last event handled
  /// Heap bytes the node held once built (its object, its actor's storage,
  /// what its constructor allocated); 0 unless measured (run_options::
  /// measure_nodes, `--memory`).
  uint64_t build_bytes = 0;
};

/// Per hub (process): protocol traffic. `windows` counts lookahead windows
/// under mailbox delivery and safe-time advances (runs of the shard loop)
/// under direct delivery.
struct hub_stats {
  uint64_t windows = 0;      ///< lookahead windows run
  uint64_t advance_msgs = 0; ///< hub -> node synchronisation messages
  uint64_t report_msgs = 0;  ///< node -> hub synchronisation messages
  uint64_t peer_msgs = 0;    ///< hub -> hub messages carrying events
  uint64_t peer_null_msgs = 0; ///< hub -> hub promise-only (null) messages
  uint64_t lbts_msgs = 0;   ///< stuck notices, probes, snapshots, jumps
  uint64_t lbts_jumps = 0;  ///< LBTS reductions that raised the promises
  uint64_t yield_msgs = 0;  ///< direct delivery: a hub's messages to itself
                            ///< to let its mailbox in during a long run
  uint64_t run_wall_ns = 0;  ///< wall time from start to the end of events
  /// Wall time from the run request to the start: the shards of the other
  /// processes still building their nodes (this shard's own; not merged)
  uint64_t start_wait_ns = 0;
  uint64_t shards = 0;       ///< shards of the run (all processes; set by shard 0)

  uint64_t sync_msgs() const {
    return advance_msgs + report_msgs + peer_null_msgs + lbts_msgs + yield_msgs;
  }
};

} // namespace kb
