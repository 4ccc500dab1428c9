#pragma once
// A shard coordinator of the conservative protocol
// (docs/adr/0001-synchronisation.md).
//
// Nodes are split into shards; each shard has one hub. Inside a shard the
// hub runs lookahead windows: with T the earliest pending event of any of its
// nodes, every node holding an event before W = min(T + L, promises of the
// other shards, end) is told to run to W and reports the events it sent and
// its next local event time. L is the smallest latency of any link leaving a
// node of the shard, so nothing sent in a window lands inside it. Only nodes
// with work in the window are woken; events are batched per node.
//
// Between shards (in one process or across processes) hubs are the logical
// processes of a Chandy-Misra-Bryant protocol: after each window a hub
// streams to every other shard the events for its nodes together with a
// promise, min(T, incoming promises) + cut lookahead, a lower bound on the
// time of anything it will still send. No hub ever waits for a round trip.
//
// Shard 0 is the registrar: the other hubs say hello to it, it tells every
// hub about all the others, and at the end it collects all node summaries.
//
// The hub's code is in five files: hub.cpp (start, windows),
// hub_collect.cpp (a failure or stop, collection), hub_promises.cpp
// (sending promises), hub_lbts.cpp (LBTS rounds when every shard is
// stuck) and hub_rings.cpp (peer batches through shared memory between
// processes of one host, ADR-0041). What it knows is in parts without CAF: the protocol's bounds
// (promise_book), mailbox windows (window_book), the results
// (result_gather) and the LBTS counting (lbts_rounds); direct delivery's
// event loop is a shard_loop.

#include "runtime/engine/peer_rings.hpp"
#include "runtime/engine/promise_book.hpp"
#include "runtime/engine/protocol.hpp"
#include "runtime/engine/result_gather.hpp"
#include "runtime/engine/shard_loop.hpp"
#include "runtime/engine/shard_tables.hpp"
#include "runtime/engine/window_book.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/response_promise.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace kb {

struct hub_init {
  uint32_t shard = 0;
  uint32_t shards = 1;
  std::shared_ptr<const shard_tables> tables;
  std::vector<node_id> ids;       ///< this shard's node ids, in order
  SimTime lookahead;              ///< min latency of links leaving the shard
  std::vector<SimTime> cut_lookahead; ///< per shard: min latency into it
  std::vector<SimTime> cut_in;        ///< per shard: min latency from it
  /// Split runs on one host: the shared-memory rings to other processes'
  /// shards (peer_rings.hpp); null or empty: CAF carries every batch.
  std::shared_ptr<peer_rings_slot> rings;
};

class hub : public caf::event_based_actor {
public:
  /// How long a blocked shard waits, with no window run, before its watch
  /// tells shard 0 (doubling up to 1 s). 1 ms at first (ADR-0014); a split
  /// run's promise round trip takes longer than that under a sanitizer, and
  /// each early notice cost an LBTS round (ADR-0029).
  static constexpr std::chrono::milliseconds first_watch{20};
  hub(caf::actor_config& cfg, hub_init init);
  caf::behavior make_behavior() override;
  const char* name() const override { return "kb.hub"; }
  /// Drops actor handles (nodes and peers refer back to this hub).
  void on_exit() override;

private:
  void on_hello(uint32_t shard, caf::actor peer);
  void on_down(const caf::down_msg& dm);
  static std::chrono::seconds join_timeout();
  void start();
  void on_report(event_batch& b);
  void on_peer(event_batch& b);
  /// A peer batch's promise, acknowledgements and events, taken in.
  void take_in(event_batch& b);
  /// After peer batches were taken in (from the mailbox or the rings):
  /// steps, or answers a question (`asked`) when done.
  void after_peers(bool asked);
  // -- peer rings (hub_rings.cpp, docs/adr/0041-peer-rings.md) --
  void open_rings();
  /// Sends a peer batch through the ring to shard `to`.
  void ring_send(uint32_t to, event_batch& b);
  /// Takes in every whole batch the rings hold; how many. `asked`: one of
  /// them asked for an answer (need).
  size_t take_rings(bool* asked = nullptr);
  /// Moves the rings' bytes into the readers (a writer waiting for room).
  void drain_rings();
  /// Blocked: polls the rings for a while, then sleeps until a doorbell.
  void wait_on_rings();
  void on_ring_poll();
  void on_doorbell();
  /// Stops polling: idle, then a last look (the writers ring from now on).
  void rings_idle();
  void route(std::vector<sim_event>& evs);
  /// Event storage for a batch: a recycled vector if there is one.
  std::vector<sim_event> spare();
  /// Takes the storage of a batch whose events have been routed.
  void recycle(std::vector<sim_event>& evs);
  void after_window();
  /// Direct delivery: runs the safe events, streams promises, and yields
  /// to the mailbox every `loop_budget` events.
  void step_direct();
  void send_promises(SimTime local);
  void try_advance(SimTime local);
  SimTime local_min() const;
  bool peers_known() const;
  void fail(std::string why);
  /// Another shard stopped (`why` is stop_reason) or failed.
  void on_halt(uint32_t shard, const std::string& why);
  /// A stop_request was seen (or another shard stopped for one): ends the
  /// run here, at the end of a window, and collects the summaries so far.
  void stop();
  void collect();
  /// Asks the next local node for its summary (collect()).
  void request_summary();
  void deliver();
  /// Shard 0, as its own collection starts: asks every other shard for its
  /// part, so that a part from another process is decoded (on CAF's I/O
  /// threads) while this shard collects its own.
  void ask_parts();
  /// Shard 0: a part (or why it did not come) is added once the own part
  /// is closed, in the order they came.
  void on_part(uint32_t shard, run_result* part, std::string why);
  void finish_root();
  /// Another shard: answers its run request once its part is safe with
  /// shard 0 (released, or shard 0 gone).
  void finish_part();
  // -- LBTS when every shard is stuck (lbts_rounds.hpp) --
  hub_snapshot snapshot(uint64_t round) const;
  /// Blocked at safe time `safe` (no event before it).
  void note_stuck(SimTime safe);
  void send_notice();
  void arm_watch();
  void on_watch();
  void on_stuck_notice();
  void start_round();
  void on_snapshot(const hub_snapshot& s);
  void apply_jump(SimTime lbts);

  hub_init init_;
  promise_book book_; ///< promises in and out, the safe time
  window_book windows_; ///< mailbox delivery: what each local node has pending
  std::unique_ptr<shard_loop> loop_;          // direct delivery only
  bool continuing_ = false;                   // a continue_atom is on its way
  /// Events of the last direct step; from this many on, a shard that asked
  /// is answered after one lookahead of progress (step_direct).
  size_t last_step_events_ = 0;
  static constexpr size_t answer_early_events = 1024;
  std::vector<node_id> local_;                // node ids of this shard
  std::vector<std::vector<sim_event>> peer_out_; // per shard
  /// Emptied event vectors, kept with their capacity: batch storage
  /// circulates hub -> node (advance) -> hub (report) without reallocating.
  std::vector<std::vector<sim_event>> spares_;
  std::vector<caf::actor> peers_;             // per shard
  std::vector<char> handed_in_;               // shard 0: parts collected
  bool part_handed_in_ = false;               // other shards: own part sent
  SimTime end_ = SimTime::infinity();
  SimTime last_window_;
  size_t outstanding_ = 0;
  bool run_requested_ = false;
  bool running_ = false;
  bool done_ = false;
  bool collected_ = false;
  bool halt_sent_ = false; ///< the other shards were told this one failed
  /// A halt that came before this shard ran: which shard sent it, and why.
  std::optional<std::pair<uint32_t, std::string>> early_halt_;
  bool stopped_ = false;   ///< stopped by a stop_request (stop())
  std::string error_;
  node_id error_node_ = no_node;
  hub_stats stats_;
  std::chrono::steady_clock::time_point started_at_;
  std::chrono::steady_clock::time_point requested_at_; ///< the run request came
  result_gather gather_; ///< the results: own nodes', other shards' parts
  size_t summaries_due_ = 0;
  size_t next_summary_ = 0; ///< local_ index of the next summary to ask for
  size_t parts_due_ = 0;
  bool parts_asked_ = false;
  /// Shard 0: parts (or failures, with the part empty) that came before
  /// its own part was closed.
  std::vector<std::tuple<uint32_t, run_result, std::string>> early_parts_;
  bool stuck_ = false;
  uint32_t stuck_repeats_ = 0;    // blocked retries without a window
  SimTime stuck_safe_;            // the safe time when last blocked
  hub_snapshot last_notice_;
  bool watch_armed_ = false;      // a watch_atom is on its way
  uint64_t watch_windows_ = 0;    // windows when it was sent
  std::chrono::milliseconds watch_delay_ = first_watch;
  uint64_t batches_sent_ = 0;     // event-carrying peer batches
  uint64_t batches_recv_ = 0;
  peer_rings* rings_ = nullptr;          // set when some peer is on a ring
  std::vector<char> ring_to_;           // per shard: its batches go by ring
  std::vector<std::pair<uint32_t, frame_reader>> ring_in_; // from each ring peer
  std::vector<char> frame_;             // a frame being decoded
  bool polling_ = false;                // a ring poll is on its way
  std::chrono::microseconds poll_for_{0}; // how long a blocked hub polls
  std::chrono::steady_clock::time_point poll_since_;
  std::unique_ptr<lbts_rounds> rounds_; // shard 0 only
  bool notice_in_round_ = false;        // a stuck notice came during a round
  caf::response_promise run_rp_;
  std::vector<caf::response_promise> collect_rps_;
};

} // namespace kb
