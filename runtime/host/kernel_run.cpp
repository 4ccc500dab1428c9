#include "runtime/host/kernel_run.hpp"

#include "runtime/host/kernel_calls.hpp"
#include "runtime/host/launch_parts.hpp"
#include "runtime/host/tensor_placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

kernel_run_result run_kernel(topology_spec topo, const kernel_def& def, const kernel_args& args,
                             const kernel_run_options& o) {
  kernel_launch l = call_prepare(def, args);
  const uint32_t programs_n = grid_programs(kernel_named(def.name), l.grid);
  std::vector<std::string> pes = pe_prefixes(topo);
  if (pes.empty())
    throw std::invalid_argument(fmt::format("{}: the topology has no PE", topo.file));
  if (o.pes > pes.size())
    throw std::invalid_argument(
      fmt::format("--pes {}: the topology has {} PEs", o.pes, pes.size()));
  if (o.pes > 0)
    pes.resize(o.pes);
  apply_places("kernel " + def.name, l.tensors, o.places);
  check_input_files("kernel " + def.name, l.tensors, o.input_files);
  kernel_run_result r;
  r.kernel = def.name;
  r.specs = l.tensors;
  r.programs = programs_n;
  r.grid = l.grid;
  for (size_t pe = 0; pe < pes.size() && pe < programs_n; ++pe)
    r.pes.push_back(pes[pe]);
  // Each tensor in its memory (by default the HBM of the first PE's cube).
  deployed_tensors deployed = place_and_deploy(
    def.name, l.tensors, r.pes, topo, {o.seed, o.input_files, o.input_cast, o.data.verify});
  const auto& placement = deployed.placement;
  const auto& image = deployed.image;
  const tensor_values& inputs = deployed.inputs;
  r.tensors = deployed.pointers;
  r.where = deployed.where;

  // The grid, dealt to the PEs round robin; a PE runs its programs in turn.
  std::map<std::string, std::shared_ptr<const pe_program>> programs;
  for (auto& [pe, part] : deal_grid(def.name, l, programs_n, pes, placement,
                                    [&](const std::string& p) {
                                      return placement->table_for(p, l.tensors);
                                    }))
    programs[pe] = std::move(part);

  // Rank 0 (or a run in one process) keeps the op log and replays it; the
  // other processes of a split run ship their records to it (o.machine.ops).
  const bool replays = o.machine.cluster.rank == 0;
  data_session data(replays ? o.data : data_request{}, image);
  machine_options d = o.machine;
  d.deploy = image;
  if (replays)
    d.ops = data.sink();
  if (d.phases)
    d.phases->mark("prepare the kernel");
  r.run = run_machine(std::move(topo), programs, d);
  if (!r.run.error.empty() || !replays || r.run.result.stopped)
    return r; // nothing to replay: the run failed or stopped early, or rank 0 replays
  data.absorb(r.run.result.nodes);
  const std::vector<data_tensor> tensors = data_tensors(l.tensors, *placement);
  tensor_values expected;
  if (o.data.verify)
    expected = call_reference(def.name, l, inputs);
  r.data = data.finish(tensors, [&](const std::string& name) {
    auto it = expected.find(name);
    if (it == expected.end())
      throw std::logic_error(fmt::format("kernel {}: its reference gives no '{}'", def.name, name));
    return it->second;
  });
  if (d.phases)
    d.phases->mark("replay the data");
  return r;
}

} // namespace kb
