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
  fabric_build_work work;

  bool reaches(uint32_t source, uint32_t group) const {
    return reach[static_cast<size_t>(source) * groups + group] != 0;
  }
};

/// Every node's route table; `out` holds each node's out links
/// `(target, latency)` sorted by target id.
fabric_routes compute_routes(const std::vector<fabric_node>& nodes,
                             const std::vector<std::vector<std::pair<node_id, uint64_t>>>& out);

} // namespace kb::detail
