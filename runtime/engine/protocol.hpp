#pragma once
// Messages of the synchronisation protocol and their CAF type IDs.
//
// hub -> node   event_batch{advance}: run every event with t < time.
// node -> hub   event_batch{report}:  events sent, next local event time.
// hub <-> hub   event_batch{peer}:    cross-process events plus a promise.
// Their `inspect` serialises through Cap'n Proto (messages/sim.capnp), so what
// crosses a process boundary is the Cap'n Proto encoding.

#include "runtime/stat_decl.hpp"
#include "runtime/engine/summary_table.hpp"
#include "runtime/engine/control_wire.hpp"
#include "runtime/engine/cross_process.hpp"
#include "runtime/engine/event.hpp"
#include "runtime/engine/interned_text.hpp"
#include "runtime/engine/lbts_rounds.hpp"
#include "runtime/engine/stats.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/type_id.hpp>

#include <string>
#include <vector>

namespace kb {

enum class batch_kind : uint8_t { advance, report, peer };

struct event_batch {
  batch_kind kind = batch_kind::advance;
  node_id node = no_node; ///< advance/report: the node concerned
  SimTime time;           ///< window end, next local time, or promise
  std::vector<sim_event> events;
  uint32_t from = 0;      ///< peer: sending rank
  /// peer: the sender is blocked on the addressee's bound; the addressee
  /// answers its next rise (or acknowledgement) at once.
  bool need = false;
  /// peer: events the sender has received from the addressee so far (its
  /// promise accounts for all of them; ADR-0014).
  uint64_t acked = 0;
  std::string error;      ///< report: why the node failed (empty if fine)
};

/// Sends a batch from actor `self` to `dest` the cheapest way CAF allows:
/// without a sender handle (a batch names its node, and an anonymous message
/// touches no reference count on the sender), scheduled on `self`'s worker
/// (so that the nodes a hub wakes run where the hub ran, warm in cache).
void post(caf::local_actor* self, const caf::actor& dest, event_batch&& b);

/// Encodes/decodes a batch as a flat Cap'n Proto message.
std::vector<char> encode_batch(const event_batch& b);
event_batch decode_batch(const std::vector<char>& bytes);

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, event_batch& x) {
  std::vector<char> bytes;
  if constexpr (Inspector::reads_state) {
    bytes = encode_batch(x); // only for a batch that leaves the process
    count_batch_out(x.events.size(), bytes.size());
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x = decode_batch(bytes);
    return caf::none;
  });
  return f(caf::meta::type_name("kb.event_batch"), bytes, load);
}

/// A figure a node reports at the end of a run: a value of a declared
/// statistic (stat_decl.hpp, ADR-0038) with its qualifier. Its name is the
/// statistic's pattern with the qualifier ("read.busy_ps"), made when asked:
/// a machine of 16,384 PEs holds about a million figures (issue 31), 48
/// bytes each.
struct figure {
  /// The statistic's pattern: a declaration's own text, or one from
  /// intern_text (a figure that came from another process).
  std::string_view pattern;
  uint64_t value = 0;
  uint32_t stat = 0;     ///< the statistic's id (stat_decl::id)
  /// The lane, command, channel or link (its far end's name), from
  /// intern_text; empty if none.
  std::string_view qualifier = {};

  bool is(const stat_decl& s) const { return stat == s.id; }
  std::string name() const { return stat_name(pattern, qualifier); }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, figure& x) {
  std::string pattern, qualifier;
  if constexpr (Inspector::reads_state) {
    pattern = std::string(x.pattern);
    qualifier = std::string(x.qualifier);
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x.pattern = intern_text(pattern);
    x.qualifier = intern_text(qualifier);
    return caf::none;
  });
  return f(caf::meta::type_name("kb.figure"), pattern, x.value, x.stat, qualifier, load);
}

/// What a node hands back when the run ends.
struct node_summary {
  node_id node = no_node;
  std::string name;
  node_stats stats;
  std::vector<figure> figures;
  /// The kind's own tables: PE_CPU's and PE_SCHEDULER's command rows
  /// (runtime/machine/command_table), a unit's stage tallies with --json
  /// (runtime/trace/stage_table).
  summary_tables tables;
  std::vector<char> records; ///< serialised trace records, if any
  std::vector<char> ops;     ///< split runs: its op records for rank 0 (encode_ops)
  std::string pending;       ///< work still held at the end (deadlock report)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_summary& x) {
  // A table crosses as its tag and bytes; it arrives as an encoded_table,
  // which its reader decodes (for_each_table).
  std::vector<uint16_t> tags;
  std::vector<std::vector<char>> bytes;
  if constexpr (Inspector::reads_state)
    for (const auto& t : x.tables) {
      tags.push_back(t->tag());
      bytes.push_back(t->encode());
    }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x.tables.clear();
    for (size_t k = 0; k < tags.size() && k < bytes.size(); ++k)
      x.tables.push_back(std::make_shared<encoded_table>(tags[k], std::move(bytes[k])));
    return caf::none;
  });
  return f(caf::meta::type_name("kb.node_summary"), x.node, x.name,
           x.stats.events, x.stats.messages_sent, x.stats.activations,
           x.stats.last_event_ps, x.stats.build_bytes,
           x.figures, tags, bytes, x.records, x.ops, x.pending, load);
}

/// The control request to a hub and its answer.
struct run_request {
  SimTime end = SimTime::infinity();
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_request& x) {
  uint64_t e = x.end.ps();
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x.end = SimTime{e};
    return caf::none;
  });
  return f(caf::meta::type_name("kb.run_request"), e, load);
}

// A snapshot and a run result cross processes as Cap'n Proto bytes
// (control_wire.hpp, messages/sim.capnp), like the batches.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, hub_snapshot& x) {
  std::vector<char> bytes;
  if constexpr (Inspector::reads_state)
    bytes = encode_snapshot(x);
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x = decode_snapshot(bytes);
    return caf::none;
  });
  return f(caf::meta::type_name("kb.hub_snapshot"), bytes, load);
}

struct run_result {
  hub_stats hub;
  std::vector<node_summary> nodes;
  std::string error; ///< empty on success (e.g. deadlock report otherwise)
  /// A stop request (SIGINT, SIGTERM; stop_request.hpp) ended the run at a
  /// safe point: the nodes' figures are those of the run so far.
  bool stopped = false;
};

/// The reason a hub gives the other shards when a stop request ended it.
inline constexpr const char* stop_reason = "stopped by a signal";
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_result& x) {
  std::vector<char> bytes;
  if constexpr (Inspector::reads_state)
    bytes = encode_result(x);
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x = decode_result(bytes);
    return caf::none;
  });
  return f(caf::meta::type_name("kb.run_result"), bytes, load);
}

// -- reading results -----------------------------------------------------------

/// The summary of node `name`, or null.
const node_summary* find_node(const run_result& r, std::string_view name);
/// The node's figure of statistic `s` and qualifier `q` (the first if it
/// repeats); 0 if absent.
uint64_t figure_or_zero(const node_summary& n, const stat_decl& s, std::string_view q = {});
/// Figure `name` of node `node`; throws std::runtime_error if either is absent.
uint64_t figure_of(const run_result& r, const std::string& node, const std::string& name);
/// Every value of a repeated figure, in the order the node added them.
std::vector<uint64_t> series_of(const run_result& r, const std::string& node,
                                const std::string& name);

} // namespace kb

CAF_BEGIN_TYPE_ID_BLOCK(kernbench, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(kernbench, (kb::event_batch))
  CAF_ADD_TYPE_ID(kernbench, (kb::figure))
  CAF_ADD_TYPE_ID(kernbench, (kb::node_summary))
  CAF_ADD_TYPE_ID(kernbench, (kb::run_request))
  CAF_ADD_TYPE_ID(kernbench, (kb::run_result))
  CAF_ADD_TYPE_ID(kernbench, (kb::hub_snapshot))
  CAF_ADD_ATOM(kernbench, kb, finish_atom, "finish")
  CAF_ADD_ATOM(kernbench, kb, hello_atom, "hello")
  CAF_ADD_ATOM(kernbench, kb, peers_atom, "peers")
  CAF_ADD_ATOM(kernbench, kb, collect_atom, "collect")
  CAF_ADD_ATOM(kernbench, kb, stuck_atom, "stuck")
  CAF_ADD_ATOM(kernbench, kb, probe_atom, "probe")
  CAF_ADD_ATOM(kernbench, kb, jump_atom, "jump")
  CAF_ADD_ATOM(kernbench, kb, join_timeout_atom, "joinTmo")
  CAF_ADD_ATOM(kernbench, kb, continue_atom, "continue")
  CAF_ADD_ATOM(kernbench, kb, watch_atom, "watch")
  CAF_ADD_ATOM(kernbench, kb, halt_atom, "halt")
  CAF_ADD_ATOM(kernbench, kb, release_atom, "release")
  CAF_ADD_ATOM(kernbench, kb, ring_poll_atom, "ringPoll")
  CAF_ADD_ATOM(kernbench, kb, doorbell_atom, "doorbell")
  CAF_ADD_ATOM(kernbench, kb, rings_atom, "rings")
CAF_END_TYPE_ID_BLOCK(kernbench)
