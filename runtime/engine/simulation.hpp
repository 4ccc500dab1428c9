#pragma once
// Builds a machine of node actors from names, factories and links, runs it
// under the conservative protocol and hands back every node's summary.
// The same description is built in every process of a split run; each
// process spawns only the nodes it owns.

#include "runtime/engine/deferred_teardown.hpp"
#include "runtime/engine/phase_clock.hpp"
#include "runtime/engine/node.hpp"

#include <caf/actor_system.hpp>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kb {

using node_factory = std::function<caf::actor(caf::actor_system&, node_init)>;

/// A factory for node kind `T`, constructed as T(cfg, init, args...).
/// Spawns lazily: a node's actor is initialised at its first message, on
/// a worker, not at spawn, where 8,000 initialisations would compete with
/// the spawning threads for the cores (ADR-0017).
template <class T, class... Args>
node_factory make_node_factory(Args... args) {
  return [=](caf::actor_system& sys, node_init init) -> caf::actor {
    return sys.spawn<T, caf::lazy_init>(std::move(init), args...);
  };
}

/// How a split run finds its peers.
struct cluster_options {
  uint32_t rank = 0;
  uint32_t ranks = 1;
  std::string host = "127.0.0.1"; ///< rank 0's host (workers connect to it)
  uint16_t port = 0;              ///< rank 0's port (0 on rank 0: pick one)
  /// Rank 0 only: called with the port it listens on, once published, to
  /// start the worker processes.
  std::function<void(uint16_t)> on_listening;
  /// Other ranks: set, it gives rank 0's port (waiting for it, throwing if
  /// it never comes) when this rank has built its nodes and connects, so
  /// that it builds while rank 0 does (`port` is then unused).
  std::function<uint16_t()> await_port;
  /// Every rank runs on this host (rank 0 started them: --procs): the
  /// processes share its cores (shard_lanes). All ranks must agree.
  bool one_host = false;
};

/// How the nodes of a shard get their events (docs/adr/0009-shard-loop.md).
enum class delivery_mode {
  direct,  ///< the shard's one event queue calls the nodes' handlers
  mailbox, ///< lookahead windows: an advance/report message pair per node
};

/// "direct" / "mailbox"; nullopt for anything else.
std::optional<delivery_mode> parse_delivery(std::string_view s);
const char* to_string(delivery_mode d);

struct run_options {
  size_t threads = 1;
  delivery_mode delivery = delivery_mode::direct;
  SimTime end = SimTime::infinity();
  /// Shards (hubs) per process; 0 picks one per thread, at most one per
  /// group (set_grouping); without groups and without an end time, one.
  /// Results never depend on it. A process runs at most one shard per
  /// thread, and a run of one process at most one per core (shard_lanes):
  /// shards that share a core only add synchronisation
  /// (docs/adr/0029-demand-driven-promises.md).
  uint32_t shards = 0;
  /// Runs exactly `shards` hubs per process even beyond the threads: for
  /// tests of the protocol between shards on a few threads.
  bool exact_shards = false;
  cluster_options cluster;
  /// Set: the actors and the actor system are dropped on its thread after
  /// run() returns, while the caller goes on (deferred_teardown.hpp).
  std::shared_ptr<deferred_teardown> teardown;
  /// Set: called once the run has planned its shards and before it starts
  /// the actor system and builds any node: what the factories read may be
  /// finished until then (the fabric routes, fabric_beside.hpp). What it
  /// throws ends the run there.
  std::function<void()> before_build;
  /// Set: called once every node is built and the shards are about to
  /// start their event loops (the heartbeat's "set-up is over").
  std::function<void()> on_running;
  /// Set: the run marks its phases here (plan the shards, build the nodes,
  /// event loop, collect the results; phase_clock.hpp).
  phase_clock* phases = nullptr;
  /// Measures the heap each node holds once built (node_stats::build_bytes,
  /// `--memory`): the nodes are then built one at a time, on one thread.
  /// Never changes results.
  bool measure_nodes = false;
};

class simulation {
public:
  /// Adds a node. Names are dotted paths and must be unique. With several
  /// threads, factories of different shards run at once (ADR-0017): a
  /// factory must not write shared state. `place` reaches the node as
  /// node::place(); `ports` names, per port its kind declares, the node
  /// its link goes to: run() resolves each to the out link's index
  /// (node::port_link) and fails naming the node and the end if none.
  /// A node without a factory belongs to another process of a split run:
  /// known here by name, place and id only (run() fails naming it if the
  /// partition puts it in this process).
  void add_node(std::string name, node_factory f, node_place place = {},
                std::vector<std::string> ports = {});
  /// A node of another process of a split run that no link here names
  /// (issue 31): known by its id and place only, no name. Its id is its
  /// place in the order of the nodes around it, so every node is added in
  /// id order (add_node then throws std::logic_error for one out of order).
  void add_elsewhere(node_place place);
  /// Adds a one-way link. latency >= 1 ps; depth 0 means unbounded.
  void add_link(const std::string& src, const std::string& dst,
                SimTime latency, std::optional<Bandwidth> bw = std::nullopt,
                uint32_t depth = 0);
  /// A link class: every member has a pure-wire link (no bandwidth, no
  /// credits) of `latency` to every other member, numbered after its own
  /// links in member id order, without a link object per pair: memory and
  /// set-up are O(members), not O(members^2). Members must exist.
  void add_all_to_all(std::vector<std::string> members, SimTime latency);
  /// Which rank owns each node, from its name and place (default: all on
  /// rank 0).
  using partition_fn = std::function<uint32_t(const std::string&, const node_place&, uint32_t ranks)>;
  void set_partition(partition_fn f);
  /// Nodes of one group (same key) always share a shard, e.g. a cube: its
  /// 1 ns links never cross shards. Shards get runs of whole groups in id
  /// order. Default: every node is its own group.
  /// The key is made from the node's name and place (a node known by id
  /// only has an empty name; an empty key is a group of its own).
  using grouping_fn = std::function<std::string(const std::string& name, const node_place& place)>;
  void set_grouping(grouping_fn f);
  /// Gives every node its own recorder (tracing / op log); off by default.
  /// Called for nodes of different shards at once, like node factories.
  void set_recorder_factory(std::function<std::shared_ptr<recorder>(const std::string&)> f);
  /// Every node gets this sink of the layer above (null: none; the op log).
  void set_node_sink(std::shared_ptr<node_sink> s) { sink_ = std::move(s); }

  /// Checks the description; throws std::invalid_argument naming the
  /// offending node or link.
  void validate() const;

  /// Runs to `opts.end` (or until nothing is left). Node summaries come back
  /// sorted by node id (the lexicographic order of names). A run without an
  /// end time that goes quiet while nodes still hold work (queued messages,
  /// messages held for lack of credit, busy lanes) is a deadlock: the error
  /// names every such node and what it holds. A simulation runs once: the
  /// run hands its links to the nodes (a second run is a logic_error).
  run_result run(const run_options& opts);

  /// Node names in id order (valid after validate()/run()).
  std::vector<std::string> names() const;
  /// Whether node `name` is built in this process (it was added with a
  /// factory), before run().
  bool builds(const std::string& name) const;
  /// The links added so far, (source, destination) in order, before run().
  const std::vector<std::pair<std::string, std::string>>& described_links() const {
    return link_names_;
  }

private:
  struct node_entry {
    node_factory factory;
    node_place place;
    std::vector<std::string> ports;
  };
  /// Each link's ends by id, in link order.
  struct link_ends {
    std::vector<node_id> src, dst;
  };
  /// validate()'s link checks, with the node ids by name: the links' ends
  /// (one search per source's run of links and one per destination).
  link_ends resolve_links(const std::unordered_map<std::string_view, node_id>& ids) const;
  /// Every node in id order: the named ones by name, and those added by
  /// add_elsewhere() after as many named ones as came before them.
  struct ordered_nodes {
    std::vector<std::string> names; ///< empty for a node known by id only
    std::vector<const node_entry*> entries;
  };
  ordered_nodes ordered() const;
  std::map<std::string, node_entry> nodes_;
  struct elsewhere_entry {
    size_t named_before; ///< named nodes added before it
    node_entry entry;
  };
  std::vector<elsewhere_entry> elsewhere_;
  bool in_order_ = true; ///< every named node so far came after the last
  std::vector<link_spec_rt> links_; // src/dst hold indexes into names order
  std::vector<std::pair<std::string, std::string>> link_names_;
  struct link_class {
    std::vector<std::string> members;
    SimTime latency;
  };
  std::vector<link_class> classes_;
  partition_fn partition_;
  grouping_fn grouping_;
  std::function<std::shared_ptr<recorder>(const std::string&)> recorder_factory_;
  std::shared_ptr<node_sink> sink_;
  bool ran_ = false;
};

} // namespace kb
