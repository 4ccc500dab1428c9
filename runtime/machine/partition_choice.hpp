#pragma once
// `--partition auto` (the default): what a shard never splits, chosen from
// the lookahead of the links each choice would cut and the shards each could
// run (docs/adr/0029-demand-driven-promises.md, "The cut from the
// lookahead"). Windows scale with one over the shortest cut link's latency;
// the parallel gain of more shards is at most their number. So whole SIPs
// (cutting only the links between SIPs) are chosen when those links'
// lookahead is at least as many times the cube cut's as the cube cut would
// run more shards; whole cubes otherwise, and always on a machine of one SIP
// or when the processes of a split run hold parts of SIPs.

#include "runtime/config/topology_spec.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kb {

struct partition_choice {
  std::string grouping; ///< "sip" or "cube" (partition_grouping)
  std::string why;      ///< in words, with the lookaheads and shard counts
};

/// The first `segments` dotted segments of a node id: the group key of
/// partition_grouping (sip0.cube1.pe3.pe_gemm -> sip0 / sip0.cube1 /
/// sip0.cube1.pe3; a name of fewer segments is its own key).
std::string_view group_prefix(std::string_view name, std::size_t segments);

/// The choice for `topo` run by `ranks` processes of `lanes` shard lanes
/// each (shard_lanes); `whole_sips`: every process holds whole SIPs.
partition_choice choose_partition(const topology_spec& topo, std::size_t lanes, uint32_t ranks,
                                  bool whole_sips);

} // namespace kb
