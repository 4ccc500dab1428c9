#pragma once
// One run of a machine built from topology and component files, each PE
// running its program (the built-in driver's commands or a kernel): what
// `kernbench run`, kernel runs and the pipeline tests share.

#include "runtime/config/topology_spec.hpp"
#include "runtime/engine/protocol.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/machine/fabric_map.hpp"
#include "runtime/machine/machine.hpp"
#include "runtime/pipeline/host_plan.hpp"
#include "runtime/pipeline/pe_program.hpp"
#include "runtime/trace/progress_recorder.hpp"
#include "runtime/trace/trace_filter.hpp"
#include "runtime/trace/trace_stream.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <memory>
#include <string>
#include <vector>

namespace kb {

class memory_image;
class op_sink;

struct machine_run {
  topology_spec topology;
  run_result result;
  std::vector<std::string> names;     ///< node names by id
  std::vector<trace_record> records;  ///< merged trace, key order
  /// Empty if the run finished cleanly; else the failure or the deadlock
  /// report naming every node that still held work.
  std::string error;
};

/// What a process of a split run takes whole (`kernbench run --cut`).
enum class cut_unit {
  automatic, ///< whole SIPs when there are at most as many processes as SIPs, else whole cubes
  sip,       ///< whole SIPs (at most one process per SIP)
  cube,      ///< whole cubes
};

/// "auto" / "sip" / "cube"; nullopt for anything else.
std::optional<cut_unit> parse_cut_unit(std::string_view s);

/// How to run: engine knobs that never change results.
struct machine_options {
  size_t threads = 1;
  delivery_mode delivery = delivery_mode::direct;
  std::string partition = "auto"; ///< auto (choose_partition), or partition_grouping(): cube, sip or pe
  uint32_t shards = 0;            ///< 0: one per thread, at most one per group
  bool record = true;             ///< trace recorders (every event, for --trace)
  /// Per command and stage type, tiles and busy time (node_summary::stages,
  /// what --json reports), summed as the run goes.
  bool tally_stages = true;
  bool trace_hops = false;        ///< also every message hop
  /// A run split over processes: this process's rank, and how to find rank
  /// 0 (ranks 1..N-1) or where to listen (rank 0). Each process takes whole
  /// SIPs (whole cubes when there are more processes than SIPs), or what
  /// `cut` says.
  cluster_options cluster;
  cut_unit cut = cut_unit::automatic;
  /// Set: every node counts its events, tiles and commands here (for a
  /// heartbeat; runtime/trace/progress_recorder.hpp). Never changes results.
  std::shared_ptr<progress_counters> progress;
  /// Set: every node streams its trace records here while the run goes
  /// (runtime/trace/trace_stream.hpp), besides `record`'s in-memory ones.
  std::shared_ptr<trace_stream_writer> stream;
  /// Set: every node streams its stages' bounds here (`--records`), whatever
  /// the trace selection.
  std::shared_ptr<trace_stream_writer> records;
  /// Set: what the trace keeps (--trace-select, --trace-window,
  /// --trace-kinds; runtime/trace/trace_filter.hpp). Null: everything.
  std::shared_ptr<const trace_filter> trace_select;
  /// A host program's launches (runtime/pipeline/host_plan.hpp; null: none).
  std::shared_ptr<const host_plan> launches;
  /// The host's initial contents of every memory (kernel runs; null: zeros).
  std::shared_ptr<const memory_image> deploy;
  /// Set: every unit logs its data ops here (the op log, seed ADR-0020 D5).
  std::shared_ptr<op_sink> ops;
  /// The machine's fabric routes if the caller built them already (for its
  /// own checks); null: built with the machine.
  std::shared_ptr<const fabric_map> fabric;
  /// Set: the machine's actors are dropped on its thread after the run
  /// (run_options::teardown), so the caller can write its outputs meanwhile.
  std::shared_ptr<deferred_teardown> teardown;
  /// Set: called with the machine's topology after the machine is built and
  /// before any node is (run_options::before_build); `fabric` may be filled
  /// until then, and a check that needs it may run there.
  std::function<void(const topology_spec&)> before_spawn;
  /// `--max-sim-time`: the run stops at this simulated time; work still
  /// pending there is an error naming it (run_limits.hpp).
  SimTime end = SimTime::infinity();
  /// `--stall-timeout`: no event handled for this long ends the process
  /// with a report of every kernel still running (zero: never).
  std::chrono::milliseconds stall_timeout{0};
  /// Set: the run marks its phases here (`--timings`; phase_clock.hpp).
  phase_clock* phases = nullptr;
  /// `--memory`: every node's heap once built is measured (node_stats::
  /// build_bytes; the nodes are then built one at a time). Never changes results.
  bool measure_memory = false;
};

/// The process (of `ranks`) that runs a node at `place` of a machine of
/// `sips` SIPs with `cubes` cubes each: whole SIPs in id order (`cut_unit::sip`,
/// or automatic when ranks <= sips), else whole cubes in id order,
/// balanced; nodes outside any SIP run on rank 0. With `cut_unit::sip`
/// ranks must not exceed sips (run_machine refuses it).
uint32_t process_of(const node_place& place, uint32_t ranks, uint32_t sips, uint32_t cubes,
                    cut_unit unit = cut_unit::automatic);

/// The nodes this process of a split run builds (`opts.cluster`,
/// `opts.cut`; process_of); empty for a run in one process.
node_filter part_of(const topology_spec& topo, const machine_options& opts);

machine_run run_machine(const std::string& topology_file,
                      const std::map<std::string, std::shared_ptr<const pe_program>>& programs,
                      const machine_options& opts);

/// The same on a topology already loaded (checked against the builtin kinds).
machine_run run_machine(topology_spec topology,
                      const std::map<std::string, std::shared_ptr<const pe_program>>& programs,
                      const machine_options& opts);

/// Loads the files, builds the machine, gives each PE prefix in `programs`
/// its program, runs until the machine is quiet. `record` turns on the
/// trace recorders (stage records, trace events); `trace_hops` also records
/// every message hop. Off, the hooks cost a null check.
machine_run run_machine(const std::string& topology_file,
                      const std::map<std::string, std::shared_ptr<const pe_program>>& programs,
                      size_t threads, bool record = true, bool trace_hops = false);

/// PE prefixes ("sip0.cube0.pe0", ...) of a topology, by SIP, cube and PE
/// number (pe2 before pe10).
std::vector<std::string> pe_prefixes(const topology_spec& topo);

} // namespace kb
