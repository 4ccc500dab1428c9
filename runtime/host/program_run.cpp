#include "runtime/host/program_run.hpp"

#include "actors/host.hpp"
#include "actors/m_cpu.hpp"
#include "runtime/exception_text.hpp"
#include "runtime/host/kernel_calls.hpp"
#include "runtime/host/launch_parts.hpp"
#include "runtime/host/tensor_placement.hpp"
#include "runtime/pipeline/host_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <optional>
#include <set>
#include <stdexcept>

namespace kb {

namespace {

/// A launch ready to deal: its kernel prepared, its tensors bound.
struct prepared_launch {
  std::string who; ///< "program P, launch 2 (gemm on queue main)"
  kernel_launch l;
  uint32_t programs = 0;
  std::vector<std::string> pes;       ///< those that get programs, in dealing order
  std::vector<size_t> pe_numbers;     ///< the same, as numbers of the machine's PEs
  std::vector<std::string> bound;     ///< per kernel tensor: the program's tensor
  /// per kernel tensor: the rows of it bound ([0, rows) for the whole)
  std::vector<std::pair<uint32_t, uint32_t>> rows;
  std::map<std::string, std::string> args;
};

std::string names_of(const std::vector<kernel_tensor>& tensors) {
  std::string out;
  for (const auto& t : tensors)
    out += (out.empty() ? "" : ", ") + t.name;
  return out.empty() ? "none" : out;
}

/// A binding's target: "x" (the whole tensor) or "x[64:128]" (rows 64..127).
struct binding {
  std::string tensor;
  std::optional<std::pair<uint32_t, uint32_t>> rows;
};

binding parse_binding(const std::string& who, const std::string& name, const std::string& to) {
  const auto open = to.find('[');
  if (open == std::string::npos || to.empty() || to.back() != ']')
    return {to, std::nullopt};
  unsigned first = 0, end = 0;
  int used = 0;
  const std::string range = to.substr(open + 1, to.size() - open - 2);
  if (std::sscanf(range.c_str(), "%u:%u%n", &first, &end, &used) != 2 ||
      static_cast<size_t>(used) != range.size() || range[0] == '-' || range[0] == '+' ||
      range.find(":-") != std::string::npos || range.find(":+") != std::string::npos)
    throw std::invalid_argument(fmt::format("{}: binds kernel tensor '{}' to '{}'; rows are "
                                            "bound as NAME[FIRST:END] (rows_of)",
                                            who, name, to));
  return {to.substr(0, open), std::pair<uint32_t, uint32_t>{first, end}};
}

prepared_launch prepare_launch(const std::string& program, const program_plan& plan, size_t i,
                               const std::vector<std::string>& machine_pes, size_t usable) {
  const launch_decl& d = plan.launches[i];
  prepared_launch p;
  p.who = fmt::format("program {}, launch {} ({} on queue {})", program, i, d.kernel,
                      plan.queues.at(d.queue));
  const kernel_def* def = nullptr;
  try {
    def = &find_kernel(d.kernel);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", p.who, e.what()));
  }
  try {
    const kernel_args args(def->name, def->args, d.args);
    p.args = args.values();
    p.l = call_prepare(*def, args);
  } catch (const kernel_code_error& e) {
    throw kernel_code_error(fmt::format("{}: {}", p.who, e.what()));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", p.who, e.what()));
  }
  p.programs = grid_programs(p.who, p.l.grid);
  // Its PEs.
  if (d.pes.first >= usable || d.pes.count > usable - d.pes.first)
    throw std::invalid_argument(fmt::format(
      "{}: PEs {} to {}, but the machine{} has {} PE(s)", p.who, d.pes.first,
      d.pes.count == 0 ? "the last" : std::to_string(uint64_t{d.pes.first} + d.pes.count - 1),
      usable < machine_pes.size() ? " (with --pes)" : "", usable));
  const size_t count = d.pes.count == 0 ? usable - d.pes.first : d.pes.count;
  for (size_t k = 0; k < count && k < p.programs; ++k) {
    p.pes.push_back(machine_pes[d.pes.first + k]);
    p.pe_numbers.push_back(d.pes.first + k);
  }
  // Its tensors, each bound to one of the program's of the same shape and dtype.
  for (const auto& [name, to] : d.bind)
    if (std::none_of(p.l.tensors.begin(), p.l.tensors.end(),
                     [&](const kernel_tensor& t) { return t.name == name; }))
      throw std::invalid_argument(fmt::format("{}: binds '{}', but kernel {} has no such tensor "
                                              "(its tensors: {})",
                                              p.who, name, d.kernel, names_of(p.l.tensors)));
  for (const kernel_tensor& t : p.l.tensors) {
    const auto b = d.bind.find(t.name);
    if (b == d.bind.end())
      throw std::invalid_argument(fmt::format(
        "{}: kernel tensor '{}' ({}x{} {}) is bound to none of the program's tensors (its "
        "tensors: {})",
        p.who, t.name, t.rows, t.cols, to_string(t.type), names_of(plan.tensors)));
    const binding to = parse_binding(p.who, t.name, b->second);
    const auto u = std::find_if(plan.tensors.begin(), plan.tensors.end(),
                                [&](const kernel_tensor& x) { return x.name == to.tensor; });
    if (u == plan.tensors.end())
      throw std::invalid_argument(fmt::format("{}: binds kernel tensor '{}' to '{}', which the "
                                              "program does not declare (its tensors: {})",
                                              p.who, t.name, to.tensor, names_of(plan.tensors)));
    const uint32_t first = to.rows ? to.rows->first : 0, end = to.rows ? to.rows->second : u->rows;
    if (to.rows && (first >= end || end > u->rows))
      throw std::invalid_argument(fmt::format(
        "{}: binds kernel tensor '{}' to rows {}..{} of the program's '{}', which has {} rows",
        p.who, t.name, first, end, u->name, u->rows));
    if (end - first != t.rows || u->cols != t.cols || u->type != t.type)
      throw std::invalid_argument(fmt::format(
        "{}: binds kernel tensor '{}' ({}x{} {}) to {}, which is {}x{} {}", p.who, t.name,
        t.rows, t.cols, to_string(t.type),
        to.rows ? fmt::format("rows {}..{} of the program's '{}'", first, end, u->name)
                : fmt::format("the program's '{}'", u->name),
        end - first, u->cols, to_string(u->type)));
    p.bound.push_back(u->name);
    p.rows.emplace_back(first, end);
  }
  return p;
}

/// The program's reference, guarded as a kernel's is (kernel_calls.hpp).
tensor_values call_program_reference(const std::string& program, const program_plan& plan,
                                     const tensor_values& inputs) {
  if (!plan.reference)
    throw kernel_code_error(fmt::format(
      "program {} has no reference (program_builder::reference): --verify has nothing to "
      "check its outputs against",
      program));
  try {
    return plan.reference(inputs);
  } catch (...) {
    throw kernel_code_error(fmt::format("program {}: its reference threw {}", program,
                                        current_exception_text()));
  }
}

} // namespace

void add_host(topology_spec& topo) {
  auto it = std::find_if(topo.nodes.begin(), topo.nodes.end(),
                         [](const node_spec& n) { return n.id == "host"; });
  if (it != topo.nodes.end() && it->kind != "host")
    throw std::invalid_argument(fmt::format("{}: node 'host' is a {}; a program run needs the "
                                            "name for its host (kind host)",
                                            it->where.str(), it->kind));
  if (it == topo.nodes.end()) {
    node_spec n;
    n.id = "host";
    n.kind = "host";
    n.impl = "host_v1";
    it = topo.nodes.insert(std::lower_bound(topo.nodes.begin(), topo.nodes.end(), n.id,
                                            [](const node_spec& a, const std::string& id) {
                                              return a.id < id;
                                            }),
                           std::move(n));
  }
  const SimTime latency = host::decl().read(it->params).link_latency;
  if (latency == SimTime::zero())
    throw std::invalid_argument(fmt::format("{}: host.link_latency_ns is 0; a link needs at "
                                            "least 1 ps",
                                            it->where.str()));
  std::vector<link_spec> add;
  for (const node_spec& n : topo.nodes) {
    if (n.kind != "m_cpu")
      continue;
    if (m_cpu::decl().read(n.params).host_latency != SimTime::zero())
      throw std::invalid_argument(fmt::format(
        "{}: {}.host_latency_ns applies to a one-kernel run; in a program run the launch path's "
        "host link is the host node's (host.link_latency_ns, declared at the system level)",
        n.where.str(), n.id));
    for (const auto& [src, dst] : {std::pair{std::string("host"), n.id}, {n.id, "host"}})
      if (!topo.find_link(src, dst))
        add.push_back({src, dst, latency, std::nullopt, topo.link_queue_depth, it->where});
  }
  topo.links.insert(topo.links.end(), add.begin(), add.end());
  std::sort(topo.links.begin(), topo.links.end(), [](const link_spec& a, const link_spec& b) {
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  });
}

program_run_result run_program(topology_spec topo, const program_def& def, const kernel_args& args,
                               const kernel_run_options& o) {
  const std::vector<std::string> machine_pes = pe_prefixes(topo);
  if (machine_pes.empty())
    throw std::invalid_argument(fmt::format("{}: the topology has no PE", topo.file));
  if (o.pes > machine_pes.size())
    throw std::invalid_argument(
      fmt::format("--pes {}: the topology has {} PEs", o.pes, machine_pes.size()));
  const size_t usable = o.pes > 0 ? o.pes : machine_pes.size();
  program_machine machine{static_cast<uint32_t>(usable), {}};
  for (size_t i = 0; i < usable; ++i) { // each cube's PEs are consecutive in the machine's order
    const std::string cube = machine_pes[i].substr(0, machine_pes[i].rfind('.'));
    if (i == 0 || cube != machine_pes[i - 1].substr(0, machine_pes[i - 1].rfind('.')))
      machine.cubes.push_back({static_cast<uint32_t>(i), 0});
    ++machine.cubes.back().count;
  }
  program_plan plan = build_program(def, args, std::move(machine));
  const std::string who = fmt::format("program {}", def.name);
  apply_places(who, plan.tensors, o.places);
  check_input_files(who, plan.tensors, o.input_files);

  program_run_result r;
  r.program = def.name;
  r.specs = plan.tensors;
  std::vector<prepared_launch> launches;
  std::set<size_t> used;
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    launches.push_back(prepare_launch(def.name, plan, i, machine_pes, usable));
    used.insert(launches.back().pe_numbers.begin(), launches.back().pe_numbers.end());
  }
  for (const size_t n : used)
    r.pes.push_back(machine_pes[n]);
  // The program's tensors, placed once for every PE any launch runs on.
  deployed_tensors deployed = place_and_deploy(
    def.name, plan.tensors, r.pes, topo, {o.seed, o.input_files, o.input_cast, o.data.verify});
  const auto& placement = deployed.placement;
  const auto& image = deployed.image;
  const tensor_values& inputs = deployed.inputs;
  r.tensors = deployed.pointers;
  r.where = deployed.where;

  // The extents of tensors bound by rows, for the whole run (kernels point at them).
  std::deque<tl::tensor_extent> slices;
  // Each PE's parts of the launches, in launch order; the host's plan.
  std::map<std::string, std::shared_ptr<pe_program>> parts;
  auto hosted = std::make_shared<host_plan>();
  hosted->program = def.name;
  for (size_t i = 0; i < launches.size(); ++i) {
    const prepared_launch& p = launches[i];
    const launch_decl& d = plan.launches[i];
    auto dealt = deal_grid(d.kernel, p.l, p.programs, p.pes, placement, [&](const std::string& pe) {
      const tensor_table mine = placement->table_for(pe, plan.tensors);
      tensor_table t;
      for (size_t k = 0; k < p.l.tensors.size(); ++k) {
        tl::ptr at = mine.at(p.bound[k]);
        const auto [first, end] = p.rows[k];
        if (end - first != at.tensor->rows) { // some rows: a pointer to them, checked against them
          const tl::tensor_extent& whole = *at.tensor;
          at = at + uint64_t{first} * whole.cols;
          at.tensor = &slices.emplace_back(tl::tensor_extent{
            rows_of(whole.name, first, end), uint64_t{end - first} * whole.cols, end - first,
            whole.cols, whole.writable, uint64_t{first} * whole.cols});
        }
        t[p.l.tensors[k].name] = at;
      }
      return t;
    });
    host_launch h{d.kernel, plan.queues[d.queue], d.after, {}};
    for (auto& [pe, part] : dealt) {
      auto& top = parts[pe];
      if (!top) {
        top = std::make_shared<pe_program>();
        top->kernel = def.name;
      }
      top->launches.emplace_back(static_cast<uint32_t>(i), std::move(part));
    }
    for (const std::string& pe : p.pes) { // its cubes' M_CPUs, in machine order
      const std::string m = pe.substr(0, pe.rfind('.')) + ".m_cpu";
      const node_spec* n = topo.find_node(m);
      if (!n || n->kind != "m_cpu")
        throw std::invalid_argument(fmt::format(
          "{}: runs on {}, whose cube has no M_CPU (a launch reaches its PEs through it)", p.who,
          pe));
      if (std::find(h.m_cpus.begin(), h.m_cpus.end(), m) == h.m_cpus.end())
        h.m_cpus.push_back(m);
    }
    std::sort(h.m_cpus.begin(), h.m_cpus.end());
    hosted->launches.push_back(std::move(h));
    std::vector<std::string> writes;
    for (size_t k = 0; k < p.l.tensors.size(); ++k)
      if (p.l.tensors[k].output || p.l.tensors[k].scratch)
        writes.push_back(p.bound[k]);
    r.launches.push_back({d.kernel, plan.queues[d.queue], p.args, d.after, std::move(writes),
                          p.pes, p.programs, p.l.grid});
  }
  add_host(topo);
  std::map<std::string, std::shared_ptr<const pe_program>> programs(parts.begin(), parts.end());

  const bool replays = o.machine.cluster.rank == 0;
  data_session data(replays ? o.data : data_request{}, image);
  machine_options m = o.machine;
  m.deploy = image;
  m.launches = hosted;
  if (replays)
    m.ops = data.sink();
  if (m.phases)
    m.phases->mark("prepare the program");
  r.run = run_machine(std::move(topo), programs, m);
  if (!r.run.error.empty() || !replays || r.run.result.stopped)
    return r;
  data.absorb(r.run.result.nodes);
  tensor_values expected;
  if (o.data.verify)
    expected = call_program_reference(def.name, plan, inputs);
  r.data = data.finish(data_tensors(plan.tensors, *placement), [&](const std::string& name) {
    auto it = expected.find(name);
    if (it == expected.end())
      throw kernel_code_error(
        fmt::format("program {}: its reference gives no '{}'", def.name, name));
    return it->second;
  });
  if (m.phases)
    m.phases->mark("replay the data");
  return r;
}

} // namespace kb
