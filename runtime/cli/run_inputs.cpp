#include "runtime/cli/run_inputs.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/cli/kernel_cli.hpp"
#include "runtime/cli/memory_budget.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/cli/run_program.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/config/yaml_override.hpp"
#include "runtime/machine/machine.hpp"
#include "runtime/plan/gemm_plan.hpp"
#include "runtime/plan/math_plan.hpp"
#include "runtime/plan/plan_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace kb {

machine_input read_machine(const run_cli& c) {
  const std::string dir = default_config_dir();
  machine_input m;
  m.path = c.topology.empty() ? dir + "/topology.yaml" : c.topology;
  // A result of `run --json` carries its machine: it reruns as it ran.
  m.doc = load_topology_document(m.path);
  for (const auto& o : c.set)
    apply_override(m.doc, parse_override(o));
  try {
    m.topo = parse_topology(m.doc, m.path, builtin_kinds().catalog());
  } catch (const config_error& e) {
    if (c.set.empty())
      throw;
    throw std::invalid_argument(
      fmt::format("{} (after --set {})", e.what(), fmt::join(c.set, " --set ")));
  }
  return m;
}

std::vector<std::string> chosen_pes(const run_cli& c, const topology_spec& topo) {
  std::vector<std::string> pes = pe_prefixes(topo);
  if (c.pes == "all")
    return pes;
  unsigned long count = 0;
  size_t used = 0;
  try {
    count = std::stoul(c.pes, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != c.pes.size() || c.pes[0] == '-' || count == 0 || count > pes.size())
    throw std::invalid_argument(fmt::format(
      "--pes {}: expected 'all' or a count from 1 to {} (the PEs of the topology)", c.pes,
      pes.size()));
  pes.resize(count);
  return pes;
}

size_t grid_pes(const run_cli& c) {
  const std::string pes = c.pes_given ? c.pes : "all";
  if (pes == "all")
    return 0;
  size_t used = 0;
  unsigned long n = 0;
  try {
    n = std::stoul(pes, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != pes.size() || n == 0 || pes[0] == '-')
    throw std::invalid_argument(fmt::format("--pes {}: expected 'all' or a count from 1", pes));
  return n;
}

run_modes parse_modes(const run_cli& c) {
  const auto delivery = parse_delivery(c.delivery);
  if (!delivery)
    throw std::invalid_argument(fmt::format("--delivery {}: expected direct or mailbox", c.delivery));
  check_partition_name(c.partition); // a bad name fails before the run
  const auto cut = parse_cut_unit(c.cut);
  if (!cut)
    throw std::invalid_argument(fmt::format("--cut {}: expected auto, sip or cube", c.cut));
  const auto how = parse_placement(c.placement);
  if (!how)
    throw std::invalid_argument(fmt::format(
      "--placement {}: expected local, remote-cube, remote-sip, sram or interleaved", c.placement));
  return {*delivery, *cut, *how};
}

std::shared_ptr<const tile_source> first_tiles_of(const run_cli& c,
                                                  const operand_addresses& operands) {
  try {
    const pe_command first = make_command(c, operands);
    if (auto* g = std::get_if<gemm_plan_args>(&first))
      return gemm_tiles(*g);
    if (auto* m = std::get_if<math_plan_args>(&first))
      return math_tiles(*m);
  } catch (const plan_error& e) {
    throw std::invalid_argument(fmt::format("--op {}: {}", c.op, e.what()));
  }
  return nullptr;
}

std::map<std::string, std::shared_ptr<const pe_program>>
programs_of(const run_cli& c, const std::vector<std::string>& pes,
            const std::vector<operand_addresses>& operands, std::vector<std::string>& described) {
  std::map<std::string, std::shared_ptr<const pe_program>> programs;
  for (uint32_t p = 0; p < pes.size(); ++p) {
    auto prog = std::make_shared<pe_program>();
    for (uint32_t r = 0; r < c.repeat; ++r)
      prog->commands.push_back(make_command(c, operands[p]));
    if (p == 0)
      for (const pe_command& cmd : prog->commands)
        described.push_back(describe(cmd));
    programs[pes[p]] = prog;
  }
  return programs;
}

std::unique_ptr<data_session>
data_session_of(const run_cli& c, const std::vector<std::string>& pes,
                const std::map<std::string, std::shared_ptr<const pe_program>>& programs,
                driver_data& dd) {
  const data_request data = data_request_of(c);
  if (!data.wants_results() || c.rank != 0)
    return nullptr;
  std::vector<pe_command> first;
  for (const std::string& pe : pes)
    first.push_back(programs.at(pe)->commands.front());
  check_memory("the operands' data (--verify, --dump-tensors, --oplog)",
               data_bytes_estimate(c, sizes_of(c), pes.size()));
  try {
    dd = make_driver_data(pes, first, c.seed, c.verify);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("--verify: {}", e.what()));
  }
  return std::make_unique<data_session>(data, dd.image);
}

} // namespace kb
