#pragma once
// Routes of the memory fabric, computed once when the machine is built
// (DESIGN §4 Fabric, docs/adr/0012-fabric-routes.md).
//
// Nodes take one of four fabric roles, declared by their kind: a requester
// (PE_DMA) sends memory requests, a forwarder (XBAR, NOC) passes requests
// and replies on, a memory (HBM, SRAM, TCM) serves them, and a translator
// (PE_MMU) takes a requester's requests, may rewrite their address, and
// sends them on by its own routes (ADR-0015). A requester sends every
// request through the translator it links to if that translator has
// routes of its own (links into the fabric); replies never pass it. A route is a path
// whose inner nodes are all forwarders; from every node to every requester
// and memory it is the shortest by total link latency, ties to the lowest
// next-hop node id. Each node keeps only "destination range -> next hop"
// rows: node ids are assigned in id order, so everything behind one UCIe
// port is one row, and a node's table has a handful of rows however large
// the machine is. The build routes alike destinations together (a cube's
// DMAs, its TCMs) and so takes time near-linear in the machine
// (fabric_routes.hpp).
//
// A memory is found from an address (ADR-0003): space, SIP, cube and, for
// TCM, PE. A requester or memory that cannot reach one that it must (every
// requester each HBM and SRAM, every memory each requester) is a build-time
// error naming both ends.

#include "runtime/address.hpp"
#include "runtime/engine/event.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

enum class fabric_role : uint8_t { none, requester, forwarder, memory, translator };

/// What a node kind is on the fabric (a kind declares it as
/// `static constexpr fabric_kind fabric{...}`; see kind_registry).
struct fabric_kind {
  fabric_role role = fabric_role::none;
  mem_space space = mem_space::hbm; ///< for a memory
};

/// One node as the fabric sees it (index = node id).
struct fabric_node {
  std::string name;
  fabric_kind kind;
};

/// One directed link.
struct fabric_link {
  node_id src = no_node;
  node_id dst = no_node;
  uint64_t latency_ps = 0;
};

/// What building the routes cost, counted (tests check that it grows with
/// the machine, not with its square; ADR-0012 "Build").
struct fabric_build_work {
  uint64_t searches = 0; ///< shortest-path searches: one per destination group
  uint64_t steps = 0;    ///< inner-loop steps of the whole build, checks included
};

namespace detail {
/// A route-table row: destinations [first, last] (ids, inclusive) go to `next`.
struct route_row {
  node_id first, last;
  node_id next;
};
struct fabric_routes;
} // namespace detail

class fabric_map {
public:
  fabric_map() = default;
  /// Computes every route; throws std::invalid_argument naming the first
  /// requester/memory pair (in id order) without a route. With `here` (a
  /// flag per node: a part of a split run, issue 31), only those nodes get
  /// route tables; another node's next hop comes from its source class
  /// (fabric_routes.hpp), the same hop its table would give. The checks
  /// cover the whole machine either way.
  static fabric_map build(std::vector<fabric_node> nodes, std::vector<fabric_link> links,
                          std::vector<char> here = {});

  /// The memory node that owns `address`, if the machine has one.
  std::optional<node_id> memory_of(uint64_t address) const;
  /// The translator every request of requester `from` goes through (its
  /// PE_MMU when that is linked into the fabric), if any.
  std::optional<node_id> via(node_id from) const {
    if (from >= via_.size() || via_[from] == no_node)
      return std::nullopt;
    return via_[from];
  }
  /// The next node on the route from `from` to `to`, if there is a route.
  std::optional<node_id> next_hop(node_id from, node_id to) const;
  /// Total link latency of the route (for reports and tests).
  std::optional<uint64_t> route_latency_ps(node_id from, node_id to) const;
  /// Node name, for messages.
  const std::string& name(node_id id) const { return nodes_.at(id).name; }
  size_t size() const { return nodes_.size(); }
  /// Rows of `from`'s route table (a measure of its size).
  size_t rows(node_id from) const { return tables_.at(from).size(); }
  /// What building the routes cost.
  const fabric_build_work& work() const { return work_; }

private:
  using row = detail::route_row;
  /// A node without a table in a part: its class's hop, or the
  /// destination itself over a shorter link straight to it.
  std::optional<node_id> class_next_hop(node_id from, node_id to) const;
  /// Every requester reaches every HBM and SRAM (through its translator, if
  /// it has one), and every memory it reaches has a way back; throws the
  /// first pair, requester by requester (memories in id order), that has not.
  void check_routes(const std::vector<node_id>& requesters, const std::vector<node_id>& memories,
                    const detail::fabric_routes& routes);

  std::vector<fabric_node> nodes_;
  std::vector<std::vector<row>> tables_; ///< per node, rows by `first`
  std::vector<uint8_t> is_dest_;         ///< requester or memory
  std::vector<std::vector<std::pair<node_id, uint64_t>>> out_latency_;
  std::vector<std::pair<uint64_t, node_id>> memories_; ///< address key -> node
  std::vector<node_id> via_; ///< per node: its translator, or no_node
  // A part's other nodes (class_hop_ empty when every node has its table).
  std::vector<uint32_t> source_of_, group_of_; ///< per node (fabric_routes)
  size_t groups_ = 0;
  std::vector<node_id> class_hop_; ///< [class * groups + group]
  std::vector<std::pair<uint64_t, uint64_t>> class_cost_; ///< (key, latency), sorted
  fabric_build_work work_;
};

/// "no route from A to B: ..." for errors raised where a route is used.
std::string no_route_message(const fabric_map& f, node_id from, node_id to);

} // namespace kb
