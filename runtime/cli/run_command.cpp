#include "runtime/cli/run_command.hpp"

#include "runtime/cli/cli_checks.hpp"
#include "runtime/cli/heartbeat.hpp"
#include "runtime/cli/host_port.hpp"
#include "runtime/cli/peer_group.hpp"
#include "runtime/cli/process_group.hpp"
#include "runtime/cli/run_cli.hpp"
#include "runtime/cli/run_cluster.hpp"
#include "runtime/cli/run_inputs.hpp"
#include "runtime/cli/run_limits_cli.hpp"
#include "runtime/cli/run_program.hpp"
#include "runtime/cli/kernel_cli.hpp"
#include "runtime/cli/program_cli.hpp"
#include "runtime/cli/report_machine.hpp"
#include "runtime/cli/run_outputs.hpp"
#include "runtime/cli/run_session.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/engine/thread_probe.hpp"
#include "runtime/predict/service_model.hpp"
#include "runtime/io/data_stdout.hpp"
#include "runtime/address.hpp"
#include "runtime/host/driver_data.hpp"
#include "runtime/kernel/op_shipper.hpp"
#include "runtime/host/placement.hpp"
#include "runtime/cli/memory_budget.hpp"
#include "runtime/config/components_doc.hpp"
#include "runtime/config/components_json.hpp"
#include "runtime/config/print_components.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/config/yaml_override.hpp"
#include "runtime/config/yaml_source.hpp"
#include "runtime/engine/cross_process.hpp"
#include "runtime/engine/partition.hpp"
#include "runtime/run/machine_run.hpp"
#include "runtime/machine/fabric_beside.hpp"
#include "runtime/machine/machine.hpp"
#include "runtime/plan/plan_error.hpp"
#include "runtime/io/atomic_file.hpp"
#include "runtime/report/csv_row.hpp"
#include "runtime/report/pe_groups.hpp"
#include "runtime/report/run_report.hpp"
#include "runtime/report/run_timings.hpp"
#include "runtime/io/signal_cleanup.hpp"
#include "runtime/trace/trace_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

namespace kb {

namespace {
std::string embedded_config_dir; // set_default_config_dir: the Python module's
} // namespace

void set_default_config_dir(std::string dir) { embedded_config_dir = std::move(dir); }

std::string default_config_dir() {
  if (const char* d = std::getenv("KB_CONFIG_DIR"); d && *d)
    return d;
  if (!embedded_config_dir.empty())
    return embedded_config_dir;
  // An installed binary: <prefix>/bin/kernbench finds <prefix>/share/kernbench/config.
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = (exe.parent_path() / KB_INSTALLED_CONFIG_DIR).lexically_normal();
    if (std::filesystem::is_regular_file(installed / "topology.yaml", ec))
      return installed.string();
  }
  return KB_DEFAULT_CONFIG_DIR;
}

namespace {


/// What crossed between processes, per simulated microsecond: the figure
/// that decides whether a split pays (issue 13). Standard output only, so
/// that --json stays identical for any number of processes.
void print_cross_process(const wire_totals& w, uint32_t ranks, const run_result& r) {
  uint64_t end_ps = 0;
  for (const auto& n : r.nodes)
    end_ps = std::max(end_ps, n.stats.last_event_ps);
  const double us = end_ps * 1e-6;
  fmt::print("\ncross-process: {} processes, {} batches, {} events, {} bytes (Cap'n Proto); "
             "per simulated us: {:.1f} batches, {:.1f} events, {:.0f} bytes\n",
             ranks, w.msgs, w.events, w.bytes, us > 0 ? w.msgs / us : 0.0,
             us > 0 ? w.events / us : 0.0, us > 0 ? w.bytes / us : 0.0);
}

/// Commands this process (rank 0 of a split run) simulates, for the
/// heartbeat.
uint64_t local_commands(const run_cli& c, const topology_spec& topo,
                        const std::vector<std::string>& pes, uint32_t ranks, cut_unit cut) {
  const auto local = std::count_if(pes.begin(), pes.end(), [&](const std::string& pe) {
    const node_spec* cpu = topo.find_node(pe + ".pe_cpu"); // pe_prefixes: it has one
    return cpu && process_of(cpu->place, ranks, topo.sips, topo.cubes_per_sip, cut) == 0;
  });
  return uint64_t{c.repeat} * static_cast<uint64_t>(local);
}

/// The data's verdict after the run: the replay's status (0 or 3), or 0.
int replay_data(const run_cli& c, data_session* session, const run_result& result,
                const driver_data& dd, phase_clock& phases) {
  if (!session)
    return 0;
  if (result.stopped) { // an op log cut short verifies nothing
    fmt::print("\ndata\n  not replayed: the run was stopped before its end (no op log, "
               "tensors or verdict)\n");
    return 0;
  }
  session->absorb(result.nodes);
  fmt::print("\ndata\n");
  const int status = print_data_result(
    c, session->finish(dd.tensors, [&](const std::string& name) { return dd.expected.at(name); }));
  phases.mark("replay the data");
  return status;
}

int run(const run_cli& c) {
  run_session s(c);
  if (!c.program.empty())
    return run_program_cli(s);
  if (!c.kernel.empty())
    return run_kernel_cli(s);
  topology_spec& topo = s.in.topo;
  machine_options& opts = s.opts;
  const std::vector<std::string> pes = chosen_pes(c, topo);
  check_run_memory(c, pes.size());
  // The other processes of a split run start now and read the machine
  // while this one places the operands and plans the commands.
  s.join();
  std::vector<pe_site> sites;
  for (const auto& pe : pes) {
    const pe_place pl = place_of(topo, pe);
    sites.push_back({pl.sip, pl.cube, pl.pe});
  }
  const std::vector<operand_addresses> operands =
    place_operands(sites, sizes_of(c), s.modes.placement, topo.sips, topo.cubes_per_sip);
  // Its stage times are checked against the routes.
  const std::shared_ptr<const tile_source> first_tiles = first_tiles_of(c, operands[0]);
  auto check_first = [&](const topology_spec& machine, std::shared_ptr<const fabric_map> routes) {
    if (first_tiles)
      check_stage_times(c, machine, pes[0], *first_tiles, std::move(routes));
  };
  // The routes, built once for that check and the machine. With two or more
  // threads they are built beside the machine and checked before its nodes
  // are; else now. A machine whose routes cannot be built is reported by
  // its build (sequential) or there (beside).
  std::shared_ptr<const fabric_map> fabric;
  std::unique_ptr<fabric_beside> routes_beside;
  s.phases.mark("place the operands");
  // A process of a split run lays out its own nodes' route tables only.
  const node_filter part = part_of(topo, opts);
  if (c.threads >= 2) {
    routes_beside = std::make_unique<fabric_beside>(fabric_inputs_of(topo, builtin_kinds(), part));
    fabric = routes_beside->fabric();
  } else {
    try {
      fabric = build_fabric(topo, builtin_kinds(), part);
    } catch (const std::exception&) {
    }
    check_first(topo, fabric);
    s.phases.mark("build the routes");
  }

  report_input rep;
  const auto programs = programs_of(c, pes, operands, rep.program);
  driver_data dd;
  std::unique_ptr<data_session> session = data_session_of(c, pes, programs, dd);
  opts.deploy = dd.image;
  opts.fabric = fabric;
  if (routes_beside)
    opts.before_spawn = [&](const topology_spec& machine) {
      routes_beside->wait();
      check_first(machine, fabric);
    };
  if (session) // rank 0 only
    opts.ops = session->sink();
  // A split run's heartbeat counts what this process (rank 0) simulates.
  const uint64_t commands = local_commands(c, topo, pes, opts.cluster.ranks, s.modes.cut);
  std::unique_ptr<heartbeat> beat = s.start_heartbeat(
    "kernbench run", progress_totals{tiles_per_command(c) * commands, commands});
  s.phases.mark("prepare the run");
  machine_run dr = run_machine(std::move(topo), programs, opts);
  beat.reset();
  wire_totals others;
  if (const auto done = s.end(dr.error, &others))
    return *done;
  const run_result& result = dr.result;
  rep.compute_dtype = parse_dtype(c.dtype_name).value_or(dtype::f16); // checked by the driver
  rep.label = rep.program.empty() ? std::string() : rep.program.front();
  s.describe(rep, dr, pes);
  index_commands(rep);
  print_summary(c, rep);
  if (s.peers) {
    wire_totals w = others;
    const auto& mine = cross_process();
    w += {mine.batches.load(), mine.events.load(), mine.bytes.load()};
    print_cross_process(w, opts.cluster.ranks, result);
  }
  s.write(rep);
  return s.close(replay_data(c, session.get(), result, dd, s.phases));
}

} // namespace

CLI::App* add_run_command(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<run_cli>();
  auto* cmd = app.add_subcommand(
    "run", "run the built-in driver on PEs of the modelled machine and report "
           "(default: 1024x1024x1024 f16 GEMM, tiles 128^3, one PE)");
  cmd->add_option("--topology", c->topology, "topology YAML (default config/topology.yaml)");
  cmd->add_option("--op", c->op, "gemm or math")->capture_default_str();
  cmd->add_option("--op-kind", c->op_kind, "math op for --op math (exp, add, relu, ...)")
    ->capture_default_str();
  cmd->add_option("--M", c->m, "rows of A / C")->capture_default_str();
  cmd->add_option("--K", c->k, "columns of A, rows of B")->capture_default_str();
  cmd->add_option("--N", c->n, "columns of B / C")->capture_default_str();
  cmd->add_option("--tile", c->tile,
                  "tile shape: TM TK TN (gemm) or TM TN (math), also as TMxTKxTN (as sweep "
                  "writes it)")
    ->expected(2, 3)
    ->delimiter('x');
  cmd->add_option("--dtype", c->dtype_name, "f16, bf16, f32, i8, i32")->capture_default_str();
  cmd->add_option("--out-dtype", c->out_dtype_name, "output dtype (default: --dtype)");
  cmd->add_flag("--a-pinned", c->a_pinned, "A already in TCM: no DMA reads of A");
  cmd->add_flag("--b-pinned", c->b_pinned, "B already in TCM: no DMA reads of B");
  cmd->add_option("--epilogue", c->epilogue, "epilogue ops OP:SCOPE (scope k_tile or output_tile)");
  cmd->add_option("--repeat", c->repeat, "commands issued back to back per PE")
    ->capture_default_str()
    ->check(CLI::Range(1, 1000000));
  cmd->add_option("--pes", c->pes,
                  "PEs running the driver: the first N by SIP, cube and PE number, or 'all' (every PE "
                  "of every cube and SIP; operands in each PE's own cube's HBM); with "
                  "--kernel the PEs the grid is dealt to (default there: all)")
    ->capture_default_str()
    ->each([c](const std::string&) { c->pes_given = true; });
  cmd->add_option("--threads", c->threads, "CAF worker threads")
    ->capture_default_str()
    ->check(CLI::Range(1, 1024));
  cmd->add_option("--delivery", c->delivery,
                  "direct (the shard's event loop calls its nodes' handlers) or mailbox "
                  "(a CAF message pair per node and lookahead window); same results")
    ->capture_default_str();
  cmd->add_option("--partition", c->partition,
                  "what a shard never splits: auto (whole SIPs when the links between SIPs "
                  "give more lookahead than the shards whole cubes would add, else whole "
                  "cubes), cube, sip, or pe (cuts the 1 ns PE-XBAR links; for experiments); "
                  "same results")
    ->capture_default_str();
  cmd->add_option("--placement", c->placement,
                  "where the host puts each PE's operands: local (own cube's HBM), "
                  "remote-cube (B in the neighbouring cube's HBM), remote-sip (B in the "
                  "next SIP's), sram (B in the own cube's SRAM), interleaved (A, B, C in "
                  "different cubes' HBMs)")
    ->capture_default_str();
  cmd->add_option("--shards", c->shards,
                  "shards per process (0: one per thread, at most one per partition group; "
                  "never more than one per thread)")
    ->capture_default_str()
    ->check(CLI::Range(0, 4096));
  cmd->add_option("--set", c->set,
                  "override a topology key before the machine is built, KEY=VALUE (dotted "
                  "path; a `components` level may be left out), e.g. "
                  "cube.pe_template.pe_gemm.mac_rows=64; repeatable")
    ->allow_extra_args(false);
  cmd->add_option("--json", c->json,
                  "write the results as JSON (schema: docs/results-schema.md; a run of many "
                  "PEs: grouped over them unless --per-pe)");
  cmd->add_option("--csv", c->csv,
                  "append one summary row to this CSV file (header first if it is new)");
  cmd->add_flag("--per-pe", c->per_pe,
                fmt::format("print and write (--json) every PE's figures (a run of more than "
                            "{} PEs prints one line per unit, link and command over its PEs, "
                            "and its --json has those groups alone)",
                            summary_pe_lines));
  cmd->add_flag("--per-command", c->per_command,
                "a kernel's or a host program's run: print every command's line and the whole "
                "critical path (the detailed report; by default it prints the kernel author's "
                "report, at most ~60 lines at any size)");
  cmd->add_flag("--timings", c->timings,
                "print where the process's wall time and memory went, phase by phase (read "
                "the machine, build the nodes, event loop, summary, outputs, teardown, ...); "
                "the JSON's `timings` has the phases before it was written");
  cmd->add_flag("--memory", c->memory,
                "print the heap each node kind's nodes held once built (nodes, bytes in all, "
                "bytes a node); the JSON's `memory` has them. The nodes are then built one "
                "at a time, on one thread; results are the same either way");
  cmd->add_flag("--quiet", c->quiet,
                "no progress line on standard error (a run longer than ~2 s prints one "
                "every ~2 s; results are the same either way)");
  cmd->add_option("--max-sim-time", c->max_sim_time,
                  "stop the run at this simulated time (e.g. 1ms, 250us; none: never); work "
                  "still pending there (a kernel that polls forever) is an error naming it "
                  "(default: 1s for a kernel run, none for the built-in driver)");
  cmd->add_option("--stall-timeout", c->stall_timeout,
                  "seconds of wall-clock time without a simulated event after which the run "
                  "ends (exit 1) naming every kernel still running and what it waits for (a "
                  "kernel looping without tl:: calls); 0: never")
    ->capture_default_str();
  cmd->add_option("--out", c->out_dir,
                  "write the results into this folder (made if missing): result.json (or "
                  "--json), machine.json (the machine as resolved; `run --topology "
                  "DIR/machine.json` reruns it), summary.txt, and every output named by a "
                  "relative path (--trace t.json, --oplog, --dump-tensors, ...)");
  cmd->add_option("--trace", c->trace,
                  "write the trace (.json: Chrome/Perfetto; .json.gz: the same gzipped, which "
                  "Perfetto opens; else Cap'n Proto); --trace-select, --trace-window and "
                  "--trace-kinds keep part of it");
  cmd->add_option("--trace-stream", c->trace_stream,
                  "write the trace while the run goes, in constant memory, as a Cap'n Proto "
                  "stream (`kernbench trace convert` makes Chrome/Perfetto JSON of it, "
                  "`kernbench trace stats` sums it up)");
  cmd->add_option("--records", c->records,
                  "write every tile's stages (unit lane, command, tile, start, end, bytes) while "
                  "the run goes, as a Cap'n Proto stream; `kernbench records convert FILE --csv "
                  "OUT` makes a table of it (the --json file holds the summary)");
  cmd->add_option("--procs", c->procs,
                  "processes the machine is split over on this host (whole SIPs each, "
                  "whole cubes when there are more processes than SIPs); same results")
    ->capture_default_str()
    ->check(CLI::Range(1, 256));
  cmd->add_option("--cut", c->cut,
                  "what a process of a split run takes whole: auto (SIPs when there are at "
                  "most as many processes as SIPs, else cubes), sip, or cube; same results")
    ->capture_default_str();
  cmd->add_option("--peers", c->peers,
                  "HOST:PORT,... of `kernbench peer` processes (other hosts): the machine is "
                  "split over this process and one per peer, as with --procs; same results "
                  "(docs/distributed.md)");
  cmd->add_option("--wire-stats", c->wire_stats, "where a worker leaves its cross-process "
                                                 "counters (peer processes)")
    ->group("");
  cmd->add_option("--rank", c->rank, "this process's rank (set for the worker processes)")
    ->group("");
  cmd->add_option("--connect", c->connect, "HOST:PORT of rank 0 (worker processes; HOST:- reads the port from standard input when this rank has built its part)")->group("");
  cmd->add_flag("--record", c->record, "record trace events (worker processes)")->group("");
  cmd->add_flag("--record-stages", c->record_stages,
                "tally stages per command (worker processes of a --json run)")
    ->group("");
  cmd->add_flag("--ship-ops", c->ship_ops, "ship op records to rank 0 (worker processes)")->group("");
  cmd->add_flag("--one-host", c->one_host,
                "every rank runs on this host (worker processes of --procs)")
    ->group("");
  cmd->add_option("--kernel", c->kernel,
                  "run a kernel by name instead of --op: shipped (gemm, softmax, ...) or "
                  "from a --kernel-lib (`kernbench list-kernels` lists them); see --arg")
    ->group("Kernels");
  cmd->add_option("--program", c->program,
                  "run a host program by name: kernels launched on queues in one run, data "
                  "flowing through memory (shipped: gemm_chain, ...; or from a --kernel-lib; "
                  "`kernbench list-kernels` lists them); see --arg")
    ->group("Kernels");
  cmd->add_option("--kernel-lib", c->kernel_libs,
                  "load a kernel library built against an installed kernbench "
                  "(docs/kernels.md); repeatable")
    ->allow_extra_args(false)
    ->group("Kernels");
  cmd->add_option("--arg", c->args, "a kernel argument KEY=VALUE (repeatable)")->group("Kernels");
  cmd->add_option("--input", c->inputs,
                  "deploy a kernel input from a NumPy file TENSOR=FILE.npy instead of random "
                  "values (repeatable); a conversion to the tensor's dtype that changes a value "
                  "is refused")
    ->group("Kernels");
  cmd->add_option("--place", c->places,
                  "where the host places a kernel tensor, TENSOR=WHERE (repeatable): hbm (the "
                  "first PE's cube, the default), hbm:sipS.cubeC, sram:sipS.cubeC, spread[:ROWS] "
                  "(row blocks over the HBM of the grid's cubes), replicated (an input, a "
                  "copy per cube) or tcm:sipS.cubeC.peP")
    ->group("Kernels");
  cmd->add_option("--kernel-stack", c->kernel_stack_kib,
                  "KiB of stack each kernel runs on (a guard page below it: a kernel that "
                  "overflows it ends the run naming it and this option)")
    ->capture_default_str()
    ->group("Kernels");
  cmd->add_flag("--input-cast", c->input_cast,
                "convert --input files to the tensors' dtypes even where values change, as a "
                "store does (round to nearest even, floats overflow to inf, integers saturate, "
                "NaN -> 0)")
    ->group("Kernels");
  cmd->add_flag("--verify,!--no-verify", c->verify,
                "replay the op log (Phase 2) and check the outputs against the kernel's "
                "reference (for --op: A x B and the epilogue ops, or f(A)); exit 3 on a "
                "mismatch. On by default for `kernbench run` without options")
    ->group("Kernels")
    ->each([c](const std::string&) { c->verify_given = true; });
  cmd->add_option("--op-digests", c->op_digests,
                  "debug mode of the replay: ops in log order on one thread, one line per op "
                  "in this file (its output view, a digest of its bytes, non-finite values); "
                  "diff two runs' files to find the first op that differs")
    ->group("Kernels");
  cmd->add_option("--dump-tensors", c->dump_tensors,
                  "write every deployed input and every result as DIR/<tensor>.npy")
    ->group("Kernels");
  cmd->add_option("--oplog", c->oplog, "keep the op log (Cap'n Proto stream) in this file")
    ->group("Kernels");
  cmd->add_option("--seed", c->seed, "seed of the kernel's random inputs")
    ->capture_default_str()
    ->check(unsigned_value())
    ->group("Kernels");
  cmd->add_option("--phase2-workers", c->phase2_workers,
                  "executor actors of the Phase 2 replay (0: one per core)")
    ->capture_default_str()
    ->check(CLI::Range(0u, 1024u))
    ->group("Kernels");
  cmd->add_flag("--trace-hops", c->trace_hops,
                "also trace every message hop (send, arrival, src, dst, kind, tile)");
  add_trace_filter_options(*cmd, c->trace_filters, "Traces of large runs");
  cmd->footer("Examples:\n"
              "  kernbench run --M 2048 --K 2048 --N 2048 --json out.json\n"
              "  kernbench run --set cube.pe_template.pe_gemm.mac_rows=64 --csv runs.csv\n"
              "  kernbench run --pes all --trace run.json   # open in ui.perfetto.dev\n"
              "  kernbench run --topology config/scale/4sip_4cube_64pe.yaml --pes all "
              "--trace-hops --trace-select 'sip1.cube2.*' --trace cube.json.gz   # one cube\n"
              "Exit status: 0 ran (with --verify: every output matches), 1 the run failed (a "
              "simulation error, an output that could not be written, a lost process, a "
              "kernel that threw, crashed, exited or stalled), 2 bad input, 3 --verify found a "
              "mismatch, "
              "130/143 ended by SIGINT/SIGTERM (temporaries removed).");
  cmd->callback([c, cmd, &exit_code] {
    // `kernbench run` alone runs the default GEMM and checks its numbers.
    if (cmd->count_all() <= 1 && !c->verify_given)
      c->verify = true;
    for (const CLI::Option* o : cmd->get_options())
      if (o->count() > 0)
        c->given.insert(o->get_name());
    const std::vector<std::filesystem::path> made = apply_out_dir(*c);
    try {
      exit_code = run(*c);
    } catch (...) { // a refused or failed run leaves no empty --out folder of its own
      remove_empty_made_folders(made);
      throw;
    }
    if (exit_code != 0)
      remove_empty_made_folders(made);
  });
  return cmd;
}

CLI::App* add_list_components_command(CLI::App& app, int& exit_code) {
  struct list_cli {
    bool json = false;
    bool yaml = false;
    bool markdown = false;
  };
  auto l = std::make_shared<list_cli>();
  auto* cmd = app.add_subcommand(
    "list-components", "print every node kind, its implementations, their keys and ports");
  auto* json = cmd->add_flag("--json", l->json,
                             "print JSON instead of text (schema: docs/results-schema.md)");
  auto* yaml = cmd->add_flag("--yaml", l->yaml, "print the catalog YAML (config/components.yaml)");
  auto* md = cmd->add_flag("--markdown", l->markdown,
                           "print the catalog as Markdown (docs/components.md)");
  json->excludes(yaml)->excludes(md);
  yaml->excludes(md);
  cmd->footer("Example:\n  kernbench list-components --json > components.json");
  cmd->callback([l, &exit_code] {
    const impl_catalog& impls = builtin_kinds().catalog();
    if (l->json)
      std::cout << components_json(impls);
    else if (l->yaml)
      std::cout << components_yaml(impls);
    else if (l->markdown)
      std::cout << components_markdown(impls) << '\n';
    else
      print_components(std::cout, impls);
    exit_code = 0;
  });
  return cmd;
}

} // namespace kb
