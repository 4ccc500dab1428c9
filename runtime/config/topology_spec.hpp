#pragma once
// The loaded, validated and fully expanded topology: every node and every
// directed link of the machine, in a deterministic order.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/config/config_error.hpp"
#include "runtime/node_place.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/sim_time.hpp"

namespace kb {

/// One topology node, e.g. `sip0.cube0.pe3.pe_gemm` of kind `pe_gemm`.
struct node_spec {
  /// Full dotted id.
  std::string id;
  std::string kind;
  std::string impl;
  /// The node's parameters, checked against its kind_doc, defaults filled
  /// in. Errors raised through it point at the component's YAML entry.
  param_reader params;
  source_loc where;
  /// Its SIP, cube and PE numbers, set by the loader from the level that
  /// holds the node (not read back from `id`).
  node_place place;
};

/// One direction of a link. Latency is at least 1 ps.
struct link_spec {
  std::string src;
  std::string dst;
  SimTime latency;
  /// None = no bandwidth limit (PE-internal wires).
  std::optional<Bandwidth> bandwidth;
  /// Depth of the receiver's input queue for this link (credits).
  uint32_t queue_depth = 0;
  source_loc where;
};

/// PEs of a cube in rows × cols; PE i sits at row i / cols, column i % cols.
/// The most nodes a topology may expand to (2^20): every node is a CAF actor
/// with its own queues and links, so a larger machine would not fit in the
/// memory of one host. (The fuzz build lowers it: CMakeLists.txt, KB_FUZZ.)
#ifndef KB_MAX_TOPOLOGY_NODES
#define KB_MAX_TOPOLOGY_NODES (uint64_t{1} << 20)
#endif
inline constexpr uint64_t max_topology_nodes = KB_MAX_TOPOLOGY_NODES;

struct pe_grid {
  uint32_t rows = 1;
  uint32_t cols = 1;
  uint32_t count() const { return rows * cols; }
};

struct topology_spec {
  /// The file the topology was loaded from, as given.
  std::string file;
  uint64_t clock_period_ps = 1000;
  uint32_t pe_wire_latency_cycles = 1;
  uint32_t pe_queue_depth = 4;
  uint32_t link_queue_depth = 4;
  /// Credits on the links between forwarders (XBAR, NOC: the UCIe and
  /// inter-SIP links too), by each link's queue_depth; off: those links
  /// are unbounded (docs/adr/0033-fabric-credits.md).
  bool fabric_credits = false;
  uint32_t sips = 1;
  uint32_t cubes_per_sip = 1;
  pe_grid pe_layout;
  /// Sorted by id (plain string order: pe10 sorts before pe2).
  std::vector<node_spec> nodes;
  /// Sorted by (src, dst); no pair appears twice.
  std::vector<link_spec> links;

  sim_clock clock() const { return sim_clock{clock_period_ps}; }

  /// The node with this id, or nullptr.
  const node_spec* find_node(std::string_view id) const;

  /// The link src → dst, or nullptr.
  const link_spec* find_link(std::string_view src, std::string_view dst) const;
};

} // namespace kb
