#pragma once
// The one base of every topology node actor. It owns what all nodes share:
// the local event queue ordered by the total key, output links (latency,
// bandwidth, cut-through), bounded input queues with credits, the op-log /
// trace hook points, and the node's side of the synchronisation protocol
// (docs/adr/0001-synchronisation.md). A node kind implements only its own
// behaviour through the virtual `on_*` functions.

#include "runtime/engine/event_queue.hpp"
#include "runtime/engine/link.hpp"
#include "runtime/engine/protocol.hpp"
#include "runtime/engine/recorder.hpp"
#include "runtime/engine/route_table.hpp"
#include "runtime/node_place.hpp"

#include <caf/event_based_actor.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb {

/// An incoming link, as the receiver sees it (for credit returns).
struct in_link_info {
  node_id src = no_node;
  uint32_t link = 0; ///< index of the link at the sender
  SimTime latency;
  bool bounded = false;
};

/// Pure-wire output links to the consecutive nodes first_dst ... first_dst +
/// count - 1 (a link class, simulation::add_all_to_all): numbered after the
/// node's own links, in order, with no per-link object and no name.
struct link_run {
  node_id first_dst = no_node;
  uint32_t count = 0;
  SimTime latency;
};

/// Everything a node needs at construction.
class node_sink;

struct node_init {
  node_id id = no_node;
  std::string name;
  node_place place; ///< where it sits (unset for a node built outside a topology)
  /// Per port its kind declares, in order: the index of the out link it
  /// sends on (resolved at build; empty for a node built without ports).
  std::vector<uint32_t> port_links;
  std::vector<link_spec_rt> out_links;
  /// Every node's name by id, one table shared by the run's nodes: an out
  /// link's end is named from it (null: the links have no names).
  std::shared_ptr<const std::vector<std::string>> names;
  std::vector<link_run> out_runs;     ///< link classes, after out_links
  std::vector<in_link_info> in_links;
  std::shared_ptr<recorder> rec; ///< null: tracing off
  std::shared_ptr<node_sink> sink; ///< null: nothing collected (the op log off)
};

/// A message a node kind sends over one of its output links.
struct outgoing {
  uint16_t kind = first_user_kind;
  queue_id queue = no_queue;     ///< set: lands in that input queue (credits)
  std::optional<SimTime> head;   ///< head ready time (default: now)
  std::optional<SimTime> tail;   ///< tail ready time (default: head)
  uint64_t bytes = 0;
  uint64_t arg0 = 0;
  uint64_t arg1 = 0;
  message_body body;
};

class shard_loop;

class node : public caf::event_based_actor {
public:
  node(caf::actor_config& cfg, node_init init);
  ~node() override;

  caf::behavior make_behavior() override;
  const char* name() const override { return name_.c_str(); }
  /// Drops the hub handle: hub and nodes refer to each other.
  void on_exit() override;

protected:
  // -- for node kinds: time, identity ----------------------------------------

  SimTime now() const { return now_; }
  node_id id() const { return id_; }
  const std::string& node_name() const { return name_; }
  /// Its SIP, cube and PE numbers, as the topology loader placed it.
  const node_place& place() const { return place_; }
  /// The out link of port `i` its kind declares, resolved at build. A node
  /// built directly on the engine, without its ports (tests), finds the
  /// link to `to` of its own scope by name instead, and throws naming both
  /// nodes if there is none.
  uint32_t port_link(size_t i, std::string_view to) const;

  // -- for node kinds: sending ----------------------------------------------

  /// Index of the output link to `dst_name`; throws naming both nodes if none.
  uint32_t link_to(std::string_view dst_name) const;
  std::optional<uint32_t> find_link(std::string_view dst_name) const;
  /// Index of the output link to node `dst`, if any.
  std::optional<uint32_t> find_link_to(node_id dst) const;
  /// Name of the node at the other end of link `l` (empty for a link of a
  /// link class, which has no name).
  const std::string& link_name(uint32_t l) const;
  size_t link_count() const { return routes_.size(); }
  SimTime link_latency(uint32_t l) const { return latencies_[routes_.at(l).latency]; }

  /// Sends over link `l`. A message for a bounded queue without credit is
  /// held (the sender blocks in virtual time); returns false in that case and
  /// `on_unblocked(l, queue)` runs when it has left.
  bool send_on(uint32_t l, outgoing&& m);

  /// A timer: `on_message` gets an event of `kind` at time `t` (>= now).
  void schedule(SimTime t, uint16_t kind, uint64_t arg0 = 0, uint64_t arg1 = 0,
                message_body body = {});

  // -- for node kinds: input queues -----------------------------------------

  bool queue_empty(queue_id q) const;
  size_t queue_size(queue_id q) const;
  /// Takes the head of queue `q` and returns its credit to the sender (the
  /// credit arrives after the link's latency).
  sim_event take(queue_id q);

  // -- for node kinds: hook points (seed ADR-0020 D2) ---------------------------

  void hook_service_start(const service_tag& tag);
  void hook_service_end(const service_tag& tag);
  /// Any other trace event (command submitted, tile ready, ...).
  void hook_event(trace_kind kind, const service_tag& tag);
  /// A service from `begin` (>= now) to `end`, known now: a memory channel
  /// serving a request it has just taken in (a trace slice, tag.lane the
  /// channel; the slices of one lane must not overlap).
  void hook_service_span(SimTime begin, SimTime end, const service_tag& tag);
  recorder* rec() const { return rec_.get(); }
  /// Whether its recorder wants services (recorder::wants_services): the
  /// hook_service_* calls, and what a kind builds for them, can be skipped.
  bool traces_services() const { return trace_services_; }
  /// The sink of the layer above (the op log; null: off) and the id of this
  /// node's next record for it (the node id in the top 24 bits, a count
  /// below: stable across runs).
  node_sink* sink() const { return sink_.get(); }
  uint64_t next_op_id() { return uint64_t{id_} << 40 | op_seq_++; }

  /// Adds a figure of the declared statistic `s` (one per node) to the
  /// end-of-run summary.
  void add_figure(const stat_decl& s, uint64_t value);
  /// Adds the figure of `s` for qualifier `q` (a lane, command, channel).
  void add_figure(const stat_decl& s, std::string_view q, uint64_t value);
  /// Adds a table of the kind's own rows to the end-of-run summary.
  void add_table(std::shared_ptr<const summary_table> t);

  // -- what a node kind implements ------------------------------------------

  /// Called once at time 0 before any event: schedule initial events here.
  virtual void on_start() {}
  /// A plain message (no queue) or a timer.
  virtual void on_message(sim_event& ev) = 0;
  /// A message entered input queue `q`.
  virtual void on_queue_arrival(queue_id) {}
  /// A message held on link `l` for queue `q` has now left.
  virtual void on_unblocked(uint32_t, queue_id) {}
  /// The run is over: add figures (busy time, ...) to the summary.
  virtual void on_finish() {}
  /// Work this node still holds when the machine went quiet (deadlock
  /// report); empty if none.
  virtual std::string pending_work() const;

private:
  friend class shard_loop;
  friend class simulation; // notes build_bytes (run_options::measure_nodes)
  /// The node's figures, counters, records and pending work at the end of
  /// the run (its answer to the hub's finish request; under direct delivery
  /// its shard loop asks it directly).
  node_summary summarize();
  // -- driven by the shard's loop (direct delivery, shard_loop.hpp) --
  void attach_loop(shard_loop* loop) { loop_ = loop; }
  void direct_start();
  void direct_handle(sim_event& ev);
  /// The shortest of this node's output links (infinity if it has none).
  SimTime min_link_latency() const;

  void on_advance(event_batch& b);
  void run_until(SimTime end);
  void dispatch(sim_event& ev);
  void on_credit(const sim_event& ev);
  // By reference: an event is 72 bytes with an owned body, and every
  // message passes through both (a by-value parameter is one more move).
  void emit(uint32_t l, sim_event&& ev, SimTime h, SimTime tau);
  void push_out(sim_event&& ev);
  /// Records the hop of `ev`, about to leave (tracing with hops).
  void note_hop(const sim_event& ev);
  const in_link_info* in_link(node_id src, uint32_t l) const;
  uint16_t latency_index(SimTime latency);

  // What every event reads or writes comes first, together: a node's
  // object is over 1.5 KB with its actor base, and an event should touch
  // as few of its cache lines as it can (a machine run is memory-bound).
  node_id id_;
  bool started_ = false;
  bool trace_hops_ = false;
  bool trace_services_ = false;
  SimTime now_;
  SimTime window_end_;
  uint64_t seq_ = 0;
  shard_loop* loop_ = nullptr; ///< set: direct delivery, no outbox
  std::shared_ptr<recorder> rec_;
  node_stats stats_;
  static constexpr uint16_t no_state = route_table::no_state;
  route_table routes_;
  std::vector<SimTime> latencies_;
  std::vector<out_link> stateful_;
  std::vector<event_fifo> queues_;
  // The rest: set-up, mailbox delivery, reports.
  std::string name_;
  node_place place_;
  std::vector<uint32_t> port_links_;
  caf::actor hub_;
  std::vector<uint32_t> stateful_link_; ///< per stateful link, its link number
  std::shared_ptr<const std::vector<std::string>> names_; ///< by node id (node_init::names)
  uint32_t named_links_ = 0; ///< the links of its own (before link classes' runs)
  std::vector<in_link_info> in_links_; // sorted by (src, link)
  mutable const in_link_info* last_in_ = nullptr; ///< the last one in_link found
  event_queue queue_;                  // local event queue, by key
  std::vector<sim_event> outbox_;      // sent this window, to the hub
  std::shared_ptr<node_sink> sink_;
  uint64_t op_seq_ = 0;
  std::vector<figure> figures_;
  summary_tables tables_;
};

} // namespace kb
