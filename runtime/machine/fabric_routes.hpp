#pragma once
// How fabric_map computes its route tables (internal; ADR-0012 "Build").
//
// A router's next hop toward a destination is the out link minimising link
// latency plus the rest of the way, whose inner nodes are all forwarders;
// ties go to the lowest next-hop id. The rest of the way from a forwarder
// depends only on the destination's links from forwarders (node and
// latency), and a router's choice only on its links to forwarders, apart
// from links straight to the destination. So destinations with the same
// links from forwarders form a group (a cube's 64 DMAs; its TCMs and SRAM),
// routers with the same links to forwarders a source class (a cube's 64
// DMAs; its TCMs; each NOC alone), and the build runs one Dijkstra per group,
// picks one hop per (source class, group), lays each class's hops out over
// the destinations in id order as rows, and has each router patch in only
// itself and the destinations it links to directly. The tables are the
// ones a Dijkstra per destination would give, row for row.
//
// A part of a split run (issue 31) lays out the tables of its own nodes
// only and keeps each class's hop and cost per group instead: another
// node's next hop is then its class's, or the destination itself when a
// link straight to it is shorter (or as short and the lower id), which is
// what its table's row would say (fabric_map::next_hop).

#include "runtime/machine/fabric_map.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace kb::detail {

/// The route tables and the grouping they were computed over.
struct fabric_routes {
  static constexpr uint32_t none = no_node;

  std::vector<std::vector<route_row>> tables; ///< per node, rows by `first`
  std::vector<uint32_t> source_of; ///< per node: its source class (none off the fabric)
  std::vector<uint32_t> group_of;  ///< per node: its group (none if no destination)
  size_t groups = 0;
  /// [source class * groups + group]: a route over forwarders exists (links
  /// straight to the destination aside).
  std::vector<char> reach;
  /// For a part (`here` given): [source class * groups + group], the
  /// class's next hop (no_node: none); and, sorted, the latency of that
  /// route for the (class * groups + group) keys where a member of the
  /// class links straight to a member of the group (the only ones a
  /// link straight to the destination is weighed against).
  std::vector<node_id> class_hop;
  std::vector<std::pair<uint64_t, uint64_t>> class_cost;
  fabric_build_work work;

  bool reaches(uint32_t source, uint32_t group) const {
    return reach[static_cast<size_t>(source) * groups + group] != 0;
  }
};

/// Every node's route table; `out` holds each node's out links
/// `(target, latency)` sorted by target id. With `here` (a flag per node),
/// only those nodes' tables, and the classes' hops for the others.
fabric_routes compute_routes(const std::vector<fabric_node>& nodes,
                             const std::vector<std::vector<std::pair<node_id, uint64_t>>>& out,
                             const std::vector<char>& here = {});

} // namespace kb::detail
