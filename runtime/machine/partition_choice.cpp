#include "runtime/machine/partition_choice.hpp"

#include "runtime/sim_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace kb {

std::string_view group_prefix(std::string_view name, std::size_t segments) {
  std::size_t pos = 0;
  for (std::size_t k = 0; k < segments; ++k) {
    pos = name.find('.', pos);
    if (pos == std::string_view::npos)
      return name;
    if (k + 1 < segments)
      ++pos;
  }
  return name.substr(0, pos);
}

namespace {

std::string ns(SimTime t) {
  return t.ps() % 1000 == 0 ? fmt::format("{} ns", t.ps() / 1000)
                            : fmt::format("{:.3f} ns", t.ps() / 1000.0);
}

} // namespace

partition_choice choose_partition(const topology_spec& topo, std::size_t lanes, uint32_t ranks,
                                  bool whole_sips) {
  const uint32_t procs = std::max<uint32_t>(ranks, 1);
  if (topo.sips < 2)
    return {"cube", "one SIP"};
  if (!whole_sips)
    return {"cube", "the processes hold parts of SIPs"};
  // The shortest latency of the links each grouping cuts (a link between
  // SIPs is cut by both).
  constexpr uint64_t none = std::numeric_limits<uint64_t>::max();
  uint64_t sip_cut = none, cube_cut = none;
  for (const link_spec& l : topo.links) {
    if (group_prefix(l.src, 2) == group_prefix(l.dst, 2))
      continue;
    cube_cut = std::min(cube_cut, l.latency.ps());
    if (group_prefix(l.src, 1) != group_prefix(l.dst, 1))
      sip_cut = std::min(sip_cut, l.latency.ps());
  }
  if (sip_cut == none)
    return {"sip", "no link between SIPs"};
  const uint64_t per_proc_sips = std::max<uint64_t>(1, topo.sips / procs);
  const uint64_t per_proc_cubes = std::max<uint64_t>(1, uint64_t{topo.sips} * topo.cubes_per_sip / procs);
  const uint64_t lane_count = std::max<std::size_t>(lanes, 1);
  const uint64_t sip_shards = std::min(lane_count, per_proc_sips);
  const uint64_t cube_shards = std::min(lane_count, per_proc_cubes);
  // The windows fall by sip_cut / cube_cut, the parallelism by
  // cube_shards / sip_shards.
  const bool sip = static_cast<double>(sip_cut) * static_cast<double>(sip_shards) >=
                   static_cast<double>(cube_cut) * static_cast<double>(cube_shards);
  const std::string why = fmt::format(
    "the links between SIPs give {} of lookahead, the cube cut {}; {} shard(s) of whole SIPs "
    "against {} of whole cubes per process",
    ns(SimTime{sip_cut}), ns(SimTime{cube_cut}), sip_shards, cube_shards);
  return {sip ? "sip" : "cube", why};
}

} // namespace kb
