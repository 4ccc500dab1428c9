#include "runtime/cli/report_machine.hpp"

#include "actors/compute_rate.hpp"
#include "runtime/cli/run_program.hpp"

#include <set>

namespace kb {

namespace {

/// Parameter `key` of the first node of `kind` (resolved by the loader, so
/// its kind's documented default when the topology leaves it out); 0 if the
/// topology has no such node.
uint64_t param_of(const topology_spec& t, const std::string& kind, const std::string& key) {
  for (const auto& n : t.nodes)
    if (n.kind == kind)
      return n.params.required<uint64_t>(key);
  return 0;
}

} // namespace

void describe_machine(report_input& rep, const topology_spec& machine) {
  rep.clock_period_ps = machine.clock_period_ps;
  rep.mac_rows = param_of(machine, "pe_gemm", "mac_rows");
  rep.mac_cols = param_of(machine, "pe_gemm", "mac_cols");
  for (const auto& n : machine.nodes) // the loader checked the rate (pe_gemm::read_config)
    if (n.kind == "pe_gemm") {
      const auto rate =
        parse_compute_rate(n.params.required<std::string>(rate_key(rep.compute_dtype)));
      rep.mac_rate_num = rate ? rate->num : 1;
      rep.mac_rate_den = rate ? rate->den : 1;
      break;
    }
  rep.math_lanes = param_of(machine, "pe_math", "lanes");
  for (const auto& n : machine.nodes)
    if (n.kind == "hbm_ctrl") {
      rep.hbm_mbps = n.params.required<Bandwidth>("bandwidth_gbps").mbps;
      break;
    }
  std::set<std::pair<uint32_t, uint32_t>> cubes;
  for (const auto& pe : rep.pes) {
    const pe_place place = place_of(machine, pe);
    cubes.emplace(place.sip, place.cube);
  }
  rep.cubes = static_cast<uint32_t>(cubes.size());
}

} // namespace kb
