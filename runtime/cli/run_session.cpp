#include "runtime/cli/run_session.hpp"

#include "runtime/cli/cli_checks.hpp"
#include "runtime/cli/kernel_cli.hpp"
#include "runtime/cli/report_machine.hpp"
#include "runtime/cli/run_cluster.hpp"
#include "runtime/cli/run_limits_cli.hpp"
#include "runtime/cli/run_outputs.hpp"
#include "runtime/engine/deferred_teardown.hpp"
#include "runtime/engine/partition.hpp"
#include "runtime/engine/thread_probe.hpp"
#include "runtime/io/data_stdout.hpp"
#include "runtime/io/signal_cleanup.hpp"
#include "runtime/kernel/op_shipper.hpp"
#include "runtime/report/run_timings.hpp"

#include <fmt/format.h>

#include <iostream>
#include <stdexcept>

namespace kb {

namespace {

/// `--json -` or `--csv -`: standard output carries that data alone (the
/// text report goes to standard error); the binary or many-file outputs
/// need a name.
void claim_stdout_for_data(const run_cli& c) {
  const std::pair<const char*, const std::string*> named[] = {
    {"--trace", &c.trace},   {"--trace-stream", &c.trace_stream}, {"--records", &c.records},
    {"--oplog", &c.oplog},
    {"--op-digests", &c.op_digests}, {"--dump-tensors", &c.dump_tensors}};
  for (const auto& [option, value] : named)
    if (*value == data_stdout::name)
      throw std::invalid_argument(fmt::format(
        "{} -: give a file name (only --json and --csv can go to standard output)", option));
  if (c.json == data_stdout::name && c.csv == data_stdout::name)
    throw std::invalid_argument(
      "--json - --csv -: only one of them can go to standard output; name a file for the other");
  if (c.rank == 0 && (c.json == data_stdout::name || c.csv == data_stdout::name))
    data_stdout::claim();
}

} // namespace

run_session::run_session(const run_cli& cli) : c(cli) {
  check_run_options(c);
  claim_stdout_for_data(c);
  check_output_paths(c);
  if (c.rank > 0) // rank 0 stops the run on a Ctrl-C (ADR-0030)
    signal_cleanup::ignore_interrupt();
  check_threads_can_start(c.threads, fmt::format("--threads {}", c.threads));
  if (c.phase2_workers != 0)
    check_threads_can_start(c.phase2_workers, fmt::format("--phase2-workers {}", c.phase2_workers));
  load_kernel_libraries(c);
  // PE prefixes come from the topology; load it once to pick the PEs.
  in = read_machine(c);
  phases.mark("read the machine");
  modes = parse_modes(c);
  opts.phases = &phases;
  apply_run_limits(c, opts);
  opts.threads = c.threads;
  opts.delivery = modes.delivery;
  opts.partition = c.partition;
  opts.cut = modes.cut;
  opts.shards = c.shards;
  opts.measure_memory = c.memory;
  if (c.rank > 0 && c.ship_ops) // rank 0 replays: a part ships its op records
    opts.ops = std::make_shared<op_shipper>();
}

void run_session::join() {
  prepare_outputs(c, opts); // refuses what does not apply before any process starts
  peers = join_cluster(c, in.topo, modes.cut, in.path, opts);
  if (peers)
    phases.mark("start the other processes");
  const uint32_t ranks = opts.cluster.ranks;
  if (const std::string note = shards_note(c.shards, c.threads, ranks, opts.cluster.one_host);
      !note.empty() && c.rank == 0)
    fmt::print(stderr, "{}\n", note);
  // Its actors are dropped while the summary is written (a part's, while it
  // ends: end_part_process).
  opts.teardown = std::make_shared<deferred_teardown>();
}

std::unique_ptr<heartbeat> run_session::start_heartbeat(const std::string& what,
                                                        progress_totals totals) {
  return kb::start_heartbeat(c, opts, what, totals);
}

std::optional<int> run_session::end(const std::string& error, wire_totals* others) {
  const auto done = end_cluster(c, peers.get(), error, others);
  if (done && c.rank > 0 && *done == 0)
    end_part_process();
  return done;
}

void run_session::describe(report_input& rep, machine_run& run, std::vector<std::string> pes) {
  rep.topology_file = in.path;
  rep.overrides = c.set;
  rep.pes = std::move(pes);
  rep.threads = c.threads;
  describe_machine(rep, run.topology);
  rep.result = &run.result;
  rep.names = std::move(run.names);
  rep.records = std::move(run.records);
  rep.per_pe = c.per_pe;
  rep.per_command = c.per_command;
  if (c.memory)
    rep.memory = memory = memory_by_kind(run.topology, run.result);
  describe_reproduction(rep, in.doc, c, opts.cluster.ranks, run.result);
}

void run_session::write(report_input& rep) {
  phases.mark("summary");
  rep.phases = &phases;
  write_outputs(c, rep, opts);
}

int run_session::close(int status) {
  if (c.timings)
    print_timings(std::cout, phases);
  if (c.memory)
    print_memory(std::cout, memory);
  return status_after_run(status);
}

} // namespace kb
