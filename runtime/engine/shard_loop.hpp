#pragma once
// Direct delivery inside a shard (docs/adr/0009-shard-loop.md, ADR-0016):
// the shard's events, in key order, drive its node actors by calling their
// handlers directly; no CAF message per event or per window. The queue has
// two levels: the keys of each node's events (a key_heap per node, the
// events themselves in one slab for the shard), and a heap of the nodes
// keyed by their earliest event (node_heap); the next event is the top
// node's first. Each node still owns its state and handles its own events
// one at a time in key order, so every node sees exactly the sequence it
// sees under mailbox delivery (lookahead windows of advance/report
// messages): results are byte-identical.
//
// Why the order is the same: a node handling event e at time t sends only at
// t + latency >= t + 1 ps and sets timers at >= t with a fresh sequence
// number, so no event for it with a key below e's can appear after e has
// been popped; popping the shard's events in key order therefore hands every
// node its own events in key order. A node may also run ahead of the other
// nodes' events, as under mailbox windows: its events earlier than the next
// other node's time plus the shard's shortest link cannot be preceded by
// anything still to be sent to it.

#include "runtime/engine/event_slab.hpp"
#include "runtime/engine/shard_tables.hpp"
#include "runtime/engine/key_heap.hpp"
#include "runtime/engine/node_heap.hpp"
#include "runtime/engine/protocol.hpp"

#include <memory>
#include <string>
#include <vector>

namespace kb {

class node;

class shard_loop {
public:
  /// `ids` the shard's node ids in order, `tables` the process's nodes,
  /// owners and local numbers by node id (shared with its other shards),
  /// `peer_out` per shard: where events for other shards go.
  shard_loop(uint32_t shard, std::shared_ptr<const shard_tables> tables,
             const std::vector<node_id>& ids,
             std::vector<std::vector<sim_event>>& peer_out);

  /// Attaches every local node and runs its `on_start` at time 0, in id
  /// order. Returns the first failure ("<node> at t=0 ps: <why>"), or "".
  std::string start();
  /// Runs events with t < `until`, at most `budget` of them. Returns the
  /// number handled; on a node's failure sets `error` and stops. An event
  /// sent to shard s at t lowers `until` to t + reply(s) for the rest of the
  /// call: s may answer it that soon (its promise does not cover what it
  /// has not received yet; ADR-0014).
  size_t run(SimTime until, size_t budget, std::string& error);
  /// Per shard: the shortest link from it into this shard.
  void set_reply_latency(std::vector<SimTime> reply) { reply_ = std::move(reply); }

  /// Time of the earliest pending event (infinity if none).
  SimTime next_time() const {
    return heap_.empty() ? SimTime::infinity() : heap_.top_time();
  }
  /// Time of the latest event handled (zero before the first).
  SimTime last_time() const { return last_; }

  /// Appends every local node's end-of-run summary to `out`, in id order:
  /// direct delivery's answer to the hub's finish requests, without a
  /// message per node. A node that throws is named in `error` (first only).
  void summarize(std::vector<node_summary>& out, std::string& error);

  /// An event sent by a node of this shard (or arriving from another one).
  void deliver(sim_event&& ev);
  /// A timer set by a node of this shard.
  void push(sim_event&& ev) { enqueue(std::move(ev)); }

private:
  /// Into the queue of its (local) destination node; enters or lowers that
  /// node in the heap.
  void enqueue(sim_event&& ev);
  /// After the top node's event: its next event's key, or out of the heap.
  void requeue_top();

  // The shard's own nodes are numbered 0, 1, ... in id order ("local"):
  // what is kept per node is kept for them only, not for every node id.
  uint32_t shard_;
  std::shared_ptr<const shard_tables> tables_;
  const std::vector<uint32_t>& local_; ///< per node id: its number in its shard
  std::vector<node*> nodes_;    ///< per local number
  const std::vector<uint32_t>& owner_;
  std::vector<std::vector<sim_event>>& peer_out_;
  node_heap heap_{0};          ///< of local numbers
  std::vector<key_heap> keys_; ///< per local number: its pending events' keys
  event_slab slab_;            ///< the events of all of them
  uint32_t current_ = no_node; ///< local number of the node being handled
  SimTime last_;
  std::vector<SimTime> reply_;                  // per shard
  SimTime horizon_ = SimTime::infinity();       // `until`, lowered by sends out
  /// The shortest link leaving any node of the shard: no node's event at t
  /// reaches another before t + lookahead_.
  SimTime lookahead_ = SimTime::infinity();
};

} // namespace kb
