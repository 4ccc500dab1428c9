#include "runtime/run/machine_run.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/run/run_limits.hpp"
#include "runtime/engine/stall_watchdog.hpp"
#include "runtime/io/stop_request.hpp"
#include "runtime/engine/partition.hpp"
#include "runtime/machine/machine.hpp"
#include "runtime/machine/partition_choice.hpp"
#include "runtime/pipeline/op_sink.hpp"
#include "runtime/trace/stage_tally_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <string_view>

namespace kb {

std::optional<cut_unit> parse_cut_unit(std::string_view s) {
  if (s == "auto")
    return cut_unit::automatic;
  if (s == "sip")
    return cut_unit::sip;
  if (s == "cube")
    return cut_unit::cube;
  return std::nullopt;
}

uint32_t process_of(const node_place& place, uint32_t ranks, uint32_t sips, uint32_t cubes,
                    cut_unit unit) {
  const uint64_t sip = place.sip.value_or(0), cube = place.cube.value_or(0);
  if (!place.sip || sip >= sips)
    return 0;
  if (unit == cut_unit::sip || (unit == cut_unit::automatic && ranks <= sips))
    return static_cast<uint32_t>(uint64_t{sip} * ranks / sips);
  if (!place.cube || cube >= cubes)
    return static_cast<uint32_t>(uint64_t{sip} * cubes * ranks / (uint64_t{sips} * cubes));
  return static_cast<uint32_t>((uint64_t{sip} * cubes + cube) * ranks / (uint64_t{sips} * cubes));
}

namespace {

/// Every node's name, by id (the loader's order, which the ids follow).
std::vector<std::string> node_names(const topology_spec& topo) {
  std::vector<std::string> out;
  out.reserve(topo.nodes.size());
  for (const node_spec& n : topo.nodes)
    out.push_back(n.id);
  return out;
}

} // namespace

node_filter part_of(const topology_spec& topo, const machine_options& opts) {
  if (opts.cluster.ranks <= 1)
    return {};
  return [rank = opts.cluster.rank, ranks = opts.cluster.ranks, sips = topo.sips,
          cubes = topo.cubes_per_sip, cut = opts.cut](const node_spec& n) {
    return process_of(n.place, ranks, sips, cubes, cut) == rank;
  };
}

std::vector<std::string> pe_prefixes(const topology_spec& topo) {
  // By SIP, cube and PE number (pe2 before pe10), as a user counts them
  // (the PE_CPUs' places); PE_CPUs outside a PE keep their order after those.
  using key = std::tuple<bool, unsigned, unsigned, unsigned, size_t>;
  std::vector<std::string> out;
  std::vector<key> keys;
  for (const auto& n : topo.nodes)
    if (n.kind == "pe_cpu") {
      const node_place& p = n.place;
      keys.push_back({!p.pe, p.sip.value_or(0), p.cube.value_or(0), p.pe.value_or(0),
                      out.size()}); // the index: ties keep their order
      out.push_back(n.id.substr(0, n.id.rfind('.')));
    }
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> sorted;
  sorted.reserve(out.size());
  for (const auto& k : keys)
    sorted.push_back(std::move(out[std::get<4>(k)]));
  return sorted;
}

machine_run run_machine(const std::string& topology_file,
                      const std::map<std::string, std::shared_ptr<const pe_program>>& programs,
                      size_t threads, bool record, bool trace_hops) {
  machine_options o;
  o.threads = threads;
  o.record = record;
  o.trace_hops = trace_hops;
  return run_machine(topology_file, programs, o);
}

machine_run run_machine(const std::string& topology_file,
                      const std::map<std::string, std::shared_ptr<const pe_program>>& programs,
                      const machine_options& o) {
  return run_machine(load_topology(topology_file, builtin_kinds().catalog()), programs, o);
}

machine_run run_machine(topology_spec topology,
                      const std::map<std::string, std::shared_ptr<const pe_program>>& programs,
                      const machine_options& o) {
  const kind_registry& kinds = builtin_kinds();
  machine_run out{std::move(topology), {}, {}, {}, {}};
  machine_context ctx = context_of(out.topology);
  const auto pe_list = pe_prefixes(out.topology);
  const std::set<std::string_view> pes(pe_list.begin(), pe_list.end());
  auto progs = std::make_shared<machine_context::program_map>();
  for (const auto& [pe, prog] : programs) {
    if (!pes.count(pe))
      throw std::invalid_argument(fmt::format("no PE '{}' in {}", pe, out.topology.file));
    (*progs)[pe] = prog;
  }
  ctx.programs = std::move(progs);
  ctx.launches = o.launches;
  ctx.deploy = o.deploy;
  ctx.fabric = o.fabric;
  auto owned = std::make_unique<simulation>();
  simulation& sim = *owned;
  sim.set_node_sink(o.ops);
  const uint32_t sips = out.topology.sips, cubes = out.topology.cubes_per_sip;
  if (o.cluster.ranks > 1) {
    if (o.cluster.ranks > sips * cubes)
      throw std::invalid_argument(fmt::format(
        "--procs {}: the machine has {} cube(s); a process runs at least one", o.cluster.ranks,
        sips * cubes));
    if (o.cut == cut_unit::sip && o.cluster.ranks > sips)
      throw std::invalid_argument(fmt::format(
        "--cut sip: {} processes, but the machine has {} SIP(s); a process runs at least one",
        o.cluster.ranks, sips));
  }
  // A process of a split run describes only its own part in full (issue 31).
  const auto process = [sips, cubes, cut = o.cut](const node_place& p, uint32_t ranks) {
    return process_of(p, ranks, sips, cubes, cut);
  };
  build_machine(out.topology, kinds, ctx, sim, part_of(out.topology, o), o.threads);
  if (o.phases)
    o.phases->mark("add the nodes and links");
  std::string partition = o.partition;
  if (partition == "auto") { // from the cut links' lookahead and the shards (ADR-0029)
    const uint32_t ranks = std::max<uint32_t>(o.cluster.ranks, 1);
    const bool whole_sips =
      ranks == 1 || (o.cut != cut_unit::cube && ranks <= out.topology.sips);
    partition = choose_partition(out.topology, shard_lanes(o.threads, ranks, o.cluster.one_host), ranks, whole_sips)
                  .grouping;
  }
  sim.set_grouping(partition_grouping(partition));
  if (o.cluster.ranks > 1)
    sim.set_partition([process](const std::string&, const node_place& p, uint32_t ranks) {
      return process(p, ranks);
    });
  std::shared_ptr<const trace_selection> select;
  if (o.trace_select)
    select = std::make_shared<const trace_selection>(*o.trace_select, node_names(out.topology));
  if (o.record || o.tally_stages || o.trace_hops || o.progress || o.stream || o.records)
    sim.set_recorder_factory([hops = o.trace_hops, record = o.record, tally = o.tally_stages,
                              progress = o.progress, stream = o.stream, records = o.records,
                              select](const std::string& name) {
      std::shared_ptr<recorder> rec = make_trace_recorder(name, record, hops, stream, select);
      if (records)
        rec = std::make_shared<stream_recorder>(records, std::move(rec));
      if (progress)
        rec = std::make_shared<progress_recorder>(progress, std::move(rec));
      if (tally) // outermost: the node asks it for its tallies
        rec = std::make_shared<stage_tally_recorder>(std::move(rec));
      return rec;
    });
  run_options opts;
  opts.threads = o.threads;
  opts.delivery = o.delivery;
  opts.shards = o.shards;
  opts.cluster = o.cluster;
  opts.teardown = o.teardown;
  opts.phases = o.phases;
  opts.measure_nodes = o.measure_memory;
  if (o.before_spawn)
    opts.before_build = [&o, &out] { o.before_spawn(out.topology); };
  // Events at --max-sim-time itself still run.
  opts.end = o.end.is_infinite() ? o.end : o.end + SimTime{1};
  {
    const std::string who = o.cluster.rank > 0
                              ? fmt::format("kernbench run (rank {})", o.cluster.rank)
                              : std::string("kernbench run");
    stall_watchdog dog(o.stall_timeout,
                       [who, limit = o.stall_timeout, ranks = o.cluster.ranks](auto stalled) {
                         return end_stalled_run(who, stalled, limit, ranks);
                       });
    // Once the machine is built, SIGINT/SIGTERM stop the run at its next
    // safe point (ADR-0030); during set-up they end it at once, as there is
    // nothing to report. Rank 0's: the other processes of a split run stop
    // when its shards tell theirs, and end at once on a signal of their own
    // (a launcher that goes ends them so; one that waited for a window's
    // end could wait for a process that is gone).
    std::optional<stop_request::armed> stoppable;
    opts.on_running = [&stoppable, rank = o.cluster.rank, progress = o.progress] {
      if (rank == 0)
        stoppable.emplace();
      if (progress)
        progress->running.store(true, std::memory_order_relaxed);
    };
    out.result = sim.run(opts);
  }
  if (!o.end.is_infinite() && out.result.error.empty() && !out.result.stopped)
    out.result.error = passed_end_report(out.result, o.end);
  out.names = node_names(out.topology); // a split run's other nodes have no name in sim
  // Its node table (a factory and its configuration per node, ~10 ms to
  // free on 1,024 PEs) goes with the machine, while the caller writes.
  if (o.teardown)
    o.teardown->start([spent = std::shared_ptr<simulation>(std::move(owned))] {});
  out.error = out.result.error; // failures and the deadlock report
  out.records = merge_records(out.result.nodes);
  if (o.phases && !out.records.empty())
    o.phases->mark("merge the trace records");
  return out;
}

} // namespace kb
