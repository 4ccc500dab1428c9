#pragma once
// What each node kind costs in memory (`kernbench run --memory`): the heap
// every node held once built (node_stats::build_bytes, measured by the
// engine while it builds the nodes one at a time), summed per kind. Like
// the timings, these are the allocator's figures, not results: the JSON
// has them after `timings`, and byte comparisons leave them out.

#include "runtime/config/topology_spec.hpp"
#include "runtime/engine/protocol.hpp"
#include "runtime/io/json_writer.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace kb {

struct kind_memory {
  std::string kind;   ///< the topology's kind of the nodes
  uint64_t nodes = 0; ///< nodes of it this run built
  uint64_t bytes = 0; ///< their heap once built, together
};

/// Per kind of `topology` that has nodes in `result`, in kind order; a node
/// the topology does not list (none in a machine run) counts under "other".
std::vector<kind_memory> memory_by_kind(const topology_spec& topology, const run_result& result);

/// The JSON's `memory` value: per kind, its nodes, bytes and bytes a node;
/// and the sum.
void write_memory_json(json_writer& j, const std::vector<kind_memory>& kinds);

/// The `memory` section of the text report.
void print_memory(std::ostream& out, const std::vector<kind_memory>& kinds);

} // namespace kb
