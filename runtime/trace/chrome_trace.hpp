#pragma once
// Chrome trace-event JSON (Perfetto, chrome://tracing), written record by
// record so a streamed trace converts in constant memory; the in-memory
// trace (`run --trace X.json`) goes through the same writer, so both give
// the same bytes for the same run (docs/adr/0039).
//
// Tracks: one process per PE (or per cube for the cube's own nodes:
// HBM, XBAR, NOC, ...), named by its id (process_name). Per node:
// - a track per unit lane, "unit/lane" (pe_dma/read): the stages as B/E
//   slices; "pe_cpu/kernel" (and "m_cpu/kernel"): the kernel and its
//   waits; "unit/events": the instants (tile ready);
// - "unit/serve" (or "unit/serve N" per channel): the spans a memory server
//   serves requests, as X slices;
// - with message hops, "unit/in", "unit/in 2", ...: each message the node
//   takes in is an X slice from its head's arrival to its tail's, named by
//   its kind and sender; a slice goes on the first of these tracks free at
//   its start, so slices on a track never overlap.
// Counters: a memory server's requests waiting or in service (`hbm/serve
// queue`), and with hops each link's bytes in flight, from the send to the
// tail's arrival (`link pe_dma -> sip0.cube0.xbar`, in the sender's
// process; a link between SIPs has a process of its own, `link
// sip0.cube0.noc <-> sip1.cube0.noc`, with a counter per direction), each
// unit's bounded input queues (`pe_gemm/gemm queue`: messages arrived and
// not taken) and its senders' credits for them (`pe_fetch_store/credits
// for pe_gemm/gemm`), docs/adr/0040.
// Each hop is an arrow from the slice the sender is in when it sends (the
// receipt it is handling, else its open stage or call, else a receipt or
// service span around that time; a node in none, one outside a trace's
// selection, gets a "send KIND to NODE" slice of no duration) to the
// receiver's slice of that message, so Perfetto binds both ends. Arrows
// are steps of flows: a request, its forwarding and its reply are one flow
// (`s` at the requester, a `t` at each receipt); a tile token's hops from
// the scheduler through the units to its tile_done are one flow (a `t` at
// each receipt and at the stage each unit passes it on from).

#include "runtime/trace/trace_counters.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <map>
#include <queue>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace kb {

/// What a trace's JSON leaves out (from its filter): the counter tracks,
/// counter steps past the end of its window, and the sends of hops that
/// arrive in it but were sent before it (their receipts start flows).
struct chrome_trace_cut {
  SimTime from{0};
  SimTime until = SimTime::infinity();
  bool counters = true;
};

class chrome_trace_writer {
public:
  /// A hop's message kind in words (message_kind_name of the pipeline,
  /// which this layer does not see); null: "k<number>".
  using kind_namer = std::string_view (*)(uint16_t kind);

  /// `nodes`: every node that has at least one record (their parents are
  /// the processes, numbered in name order); `names` by node id.
  chrome_trace_writer(std::ostream& out, const std::vector<std::string>& names,
                      const std::set<node_id>& nodes, kind_namer kinds = nullptr,
                      chrome_trace_cut cut = {});
  /// The next record, in key order (time, node, seq).
  void add(const trace_record& r);
  /// Closes the JSON document; counter steps due after the cut's `until`
  /// (the end of a trace's window) are left out, as the window cuts slices.
  void finish();

private:
  /// A node's slices as the flows need them.
  struct lane_state {
    uint32_t open = 0; ///< B/E slices open
    SimTime last_begin;
  };
  struct span {
    SimTime begin, end;
    uint64_t tid;
  };
  /// A flow: one per request and its reply across the fabric, one per
  /// tile token across its units (docs/adr/0039).
  struct chain {
    uint64_t id = 0; ///< 0: none (yet)
    std::string name; ///< its first message's kind (every event of it carries it)
    bool step = false; ///< continued: a step where the hop is sent
    /// id 0: where it starts if it goes on (the receipt of a message sent
    /// before a trace's window: "pid":..,"tid":..,"ts":..), or empty
    std::string start;
    bool live() const { return id != 0 || !start.empty(); }
    bool same(const chain& o) const { return live() && id == o.id && start == o.start; }
  };
  /// A message taken in at the node's latest receipt time, its track and
  /// the flow it ended.
  struct in_now {
    trace_record r; ///< the receipt
    uint64_t tid;
    chain flow;
  };
  struct node_slices {
    std::vector<SimTime> in_free; ///< per "in" track: the end of its last slice
    std::vector<lane_state> lanes;
    SimTime in_t;                 ///< the latest receipt's head time ...
    std::vector<in_now> ins;      ///< ... and the receipts at that time
    std::vector<span> spans;      ///< X slices that may still hold a send
    /// Tile tokens taken in and not passed on yet, by (command, tile).
    std::map<std::pair<uint64_t, uint64_t>, chain> tokens;
  };
  /// A hop whose receipt is still to come: drawn when the records reach
  /// its head's arrival (in the engine's order: time, receiver, sender,
  /// the sender's number for it).
  struct arrival {
    trace_record hop;
    chain flow;
    size_t link; ///< the link's bytes-in-flight counter
    bool operator>(const arrival& o) const {
      return std::tie(hop.arrival, hop.peer, hop.node, hop.msg_seq) >
             std::tie(o.hop.arrival, o.hop.peer, o.hop.node, o.hop.msg_seq);
    }
  };

  const std::string& name_of(node_id n) const;
  std::string parent(node_id n) const;
  std::string short_name(node_id n) const;
  std::string kind_name(uint16_t kind) const;
  void sep();
  /// Notes the track of `r` and, from its first stage, the lane's name.
  void note_thread(int pid, uint64_t tid, const trace_record& r);
  /// Writes the E slices held back while records of one node and time
  /// come (so a flow sent at a slice's end starts inside it).
  void flush_ends();
  /// One record (after the receipts due before it).
  void one(const trace_record& r);
  /// Draws the receipts due at or before (t, node).
  void arrivals_until(SimTime t, node_id node);
  void receipt(const arrival& a);
  /// A flow from launch `launch`'s host slice to a kernel slice beginning at ts.
  void launch_flow(uint64_t launch, int pid, uint64_t tid, const std::string& ts);
  void service(int pid, const trace_record& r);
  void hop(int pid, const trace_record& r);
  /// The receipt at the sender's current time that hop `r` is sent while
  /// handling (the one it forwards or answers, else the latest), or null.
  in_now* handled(node_slices& ns, const trace_record& r);
  /// The flow hop `r` continues from its sender (a message forwarded or
  /// answered while its receipt `in` is handled, a tile token passed on),
  /// or none; `from_receipt`: whether it is sent from `in`'s slice.
  chain continued(node_slices& ns, const trace_record& r, in_now* in, bool from_receipt);
  /// Notes an X slice of the node that a later send may lie in.
  static void add_span(node_slices& ns, span s, SimTime now);
  /// The track of the slice node `n` is in at `t` (see the header), or
  /// ~0 when it is in none; `in`: the receipt it handles, if any.
  uint64_t sender_track(node_id n, SimTime t, const in_now* in);
  /// Counter tracks: messages in node `n`'s bounded input queue; credits
  /// `sender` has left for `receiver`'s queue.
  size_t queue_counter(int pid, node_id n, uint16_t queue);
  size_t credit_counter(int pid, node_id sender, node_id receiver, uint16_t queue);
  /// The SIP part of a node's name ("sip1").
  std::string_view sip_of(node_id n) const;
  /// The process of the link between `a` and `b` (both directions), made
  /// the first time.
  int link_pid(node_id a, node_id b);
  /// Name of `peer` as seen from `n`'s process: short within it.
  std::string peer_label(node_id n, node_id peer) const;

  std::ostream& out_;
  const std::vector<std::string>& names_;
  std::map<std::string, int> pids_;
  /// Every track (pid, tid) with its name: a lane's is the summary's
  /// (lane_name of the stages it serves), "kernel", or empty for a track of
  /// instants ("events"); "in" and "serve" tracks are named when made.
  /// Written as thread_name at the end, once every track's first stage is
  /// known.
  std::map<std::pair<int, uint64_t>, std::string> threads_;
  std::unordered_map<node_id, node_slices> slices_;
  /// Hops whose receipt is still to come, earliest first.
  std::priority_queue<arrival, std::vector<arrival>, std::greater<>> arrivals_;
  struct held_end {
    std::string text;
    node_id node;
    uint16_t lane;
  };
  std::vector<held_end> held_ends_;
  trace_counters counters_;
  node_id group_node_ = no_node;
  SimTime group_t_;
  kind_namer kinds_;
  chrome_trace_cut cut_;
  bool first_ = true;
  uint64_t flows_ = 0;
  /// Each program launch's host slice begin: "pid":..,"tid":..,"ts":..
  std::map<uint64_t, std::string> launches_;
};

} // namespace kb
