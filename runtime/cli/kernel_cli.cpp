#include "runtime/cli/kernel_cli.hpp"

#include "runtime/cli/memory_budget.hpp"
#include "runtime/cli/run_outputs.hpp"
#include "runtime/pipeline/command.hpp"
#include "runtime/report/run_metrics.hpp"

#include "runtime/machine/machine.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/host/kernel_calls.hpp"
#include "runtime/host/kernel_run.hpp"
#include "kernels/kernel_library.hpp"
#include "runtime/machine/pipeline_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <stdexcept>

namespace kb {

void check_run_options(const run_cli& c) {
  if (c.rank > 0)
    return;
  auto given = [&](const char* o) { return c.given.count(o) > 0; };
  if (!c.kernel.empty() && !c.program.empty())
    throw std::invalid_argument(fmt::format(
      "--kernel {} --program {}: one or the other (a program names the kernels it launches)",
      c.kernel, c.program));
  if (!c.runs_kernels()) {
    for (const char* o : {"--arg", "--input", "--input-cast", "--place", "--kernel-stack"})
      if (given(o))
        throw std::invalid_argument(fmt::format(
          "{}: only with --kernel or --program (it is a kernel's; the built-in driver takes --M, "
          "--K, --N, --dtype, ...)", o));
    if (given("--per-command"))
      throw std::invalid_argument(
        "--per-command: only with --kernel or --program (the built-in driver's report lists "
        "every command already)");
    return;
  }
  const char* work = c.work_option();
  // The driver's problem: a kernel takes it as its own arguments.
  for (const char* o : {"--M", "--K", "--N", "--dtype", "--out-dtype", "--tile"})
    if (given(o)) {
      std::string arg(o + 2); // --out-dtype: --arg out_dtype=...
      std::replace(arg.begin(), arg.end(), '-', '_');
      throw std::invalid_argument(fmt::format(
        "{}: not with {}; a {} takes its sizes and types as arguments, e.g. "
        "--arg {}=... (`kernbench list-kernels` lists {} {}'s)",
        o, work, c.program.empty() ? "kernel" : "program", arg,
        c.program.empty() ? "kernel" : "program", c.program.empty() ? c.kernel : c.program));
    }
  for (const char* o : {"--op", "--op-kind", "--a-pinned", "--b-pinned", "--epilogue",
                        "--repeat"})
    if (given(o))
      throw std::invalid_argument(fmt::format(
        "{}: not with {} (it shapes the built-in driver's commands; a kernel issues "
        "its own)", o, work));
  if (given("--placement"))
    throw std::invalid_argument(fmt::format(
      "--placement: not with {} (it places the built-in driver's operands; a kernel's "
      "tensors are placed by the host, docs/kernels.md)", work));
}

void load_kernel_libraries(const run_cli& c) {
  if (c.kernel_libs.empty())
    return;
  if (!c.runs_kernels())
    throw std::invalid_argument(
      "--kernel-lib: only with --kernel or --program (a library adds kernels and programs to run)");
  for (const auto& path : c.kernel_libs)
    load_kernel_library(path);
}

kernel_run_options kernel_run_options_of(const run_cli& c) {
  kernel_run_options o;
  o.seed = c.seed;
  o.data = data_request_of(c);
  for (const auto& [name, path] : parse_kernel_args(c.inputs, "--input"))
    o.input_files[name] = path;
  o.input_cast = c.input_cast;
  for (const auto& [name, where] : parse_kernel_args(c.places, "--place")) {
    const auto place = parse_tensor_place(where);
    if (!place)
      throw std::invalid_argument(fmt::format(
        "--place {}={}: expected hbm, hbm:sipS.cubeC, sram:sipS.cubeC, spread, spread:ROWS, "
        "cubes, cubes:ROWS, replicated or tcm:sipS.cubeC.peP",
        name, where));
    o.places[name] = *place;
  }
  o.pes = grid_pes(c); // a grid is dealt to every PE unless --pes says otherwise
  return o;
}

data_request data_request_of(const run_cli& c) {
  data_request d;
  d.verify = c.verify;
  d.dump_dir = c.dump_tensors;
  d.oplog = c.oplog;
  d.op_digests = c.op_digests;
  d.phase2_workers = c.phase2_workers;
  return d;
}

int print_data_result(const run_cli& c, const data_result& d) {
  if (d.op_records > 0 || !c.oplog.empty())
    fmt::print("  op log          {} records{}\n", d.op_records,
               c.oplog.empty() ? "" : fmt::format(" in {}", c.oplog));
  if (d.replayed)
    fmt::print("  phase 2         {} ops in {} batches, {:.3f} GFLOP, {:.3f} s\n", d.phase2.ops,
               d.phase2.batches, d.phase2.flops * 1e-9, d.phase2.seconds);
  if (!c.op_digests.empty())
    fmt::print("  op digests      one line per op in {}\n", c.op_digests);
  if (!c.dump_tensors.empty())
    fmt::print("  tensors         written to {}/<name>.npy\n", c.dump_tensors);
  if (!c.verify)
    return 0;
  for (const auto& v : d.verdicts)
    fmt::print("  verify          {}\n", v.describe());
  const bool ok = d.ok();
  fmt::print("verdict: {}\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 3;
}

namespace {

kernel_info info_of(const kernel_def& def, const kernel_args& args, const kernel_run_result& r,
                    bool verified) {
  kernel_info k;
  k.name = def.name;
  k.args = args.values();
  k.programs = r.programs;
  k.grid = r.grid;
  k.pes = r.pes.size();
  for (size_t i = 0; i < r.specs.size() && i < r.tensors.size(); ++i) {
    const kernel_tensor& t = r.specs[i];
    const tl::ptr p = r.tensors[i].second;
    k.tensors.push_back(
      {t.name, t.rows, t.cols, t.type, t.output, t.scratch, p.address,
       i < r.where.size() ? r.where[i] : memory_of(p.address)});
  }
  k.verified = verified && r.data.replayed;
  for (const auto& v : r.data.verdicts)
    k.verdicts.push_back({v.name, v.ok, v.elements, v.mismatches, v.max_abs_error, v.describe()});
  return k;
}

} // namespace

int run_kernel_cli(run_session& s) {
  const run_cli& c = s.c;
  const kernel_def& def = find_kernel(c.kernel);
  const kernel_args args(def.name, def.args, parse_kernel_args(c.args));
  {
    // The tensors live in the host's image, in the memories' copies and (with
    // --verify) in the replay's image, and as f32 values for the reference.
    uint64_t estimate = 0;
    for (const kernel_tensor& t : call_prepare(def, args).tensors) {
      const uint64_t elements = mul_sat(t.rows, t.cols);
      estimate = add_sat(estimate, add_sat(mul_sat(3, mul_sat(elements, dtype_bytes(t.type))),
                                           mul_sat(elements, 8)));
    }
    check_memory(fmt::format("kernel {}'s tensors", def.name), estimate);
  }
  kernel_run_options o = kernel_run_options_of(c);
  // A split run (--procs, --peers): every process builds the same grid and
  // tensors; the others ship their op records to rank 0, which replays.
  s.join();
  std::unique_ptr<heartbeat> beat =
    s.start_heartbeat(fmt::format("kernbench run --kernel {}", def.name), {});
  o.machine = s.opts;
  kernel_run_result r = run_kernel(std::move(s.in.topo), def, args, o);
  beat.reset();
  if (!s.peers && c.rank == 0 && !r.run.error.empty()) {
    fmt::print(stderr, "kernbench run --kernel {}: {}\n", def.name, r.run.error);
    return 1;
  }
  if (const auto done = s.end(r.run.error))
    return *done;
  const bool stopped = r.run.result.stopped;
  const kernel_info info = info_of(def, args, r, c.verify && !stopped);
  report_input rep;
  if (const auto t = args.values().find("dtype"); t != args.values().end())
    rep.compute_dtype = parse_dtype(t->second).value_or(dtype::f16); // the kernel's operands
  rep.label = fmt::format("kernel {}", def.name);
  rep.kernel = &info;
  s.describe(rep, r.run, r.pes);
  index_commands(rep);
  print_summary(c, rep);
  uint64_t tcm_peak = 0, commands = 0;
  for (const auto& p : rep.commands) {
    commands += p.rows.size();
    if (p.cpu)
      tcm_peak = std::max(tcm_peak, figure_or_zero(*p.cpu, kernel_stats::tcm_peak_bytes));
  }
  fmt::print("\nkernel {} ({} programs on {} PE(s))\n", def.name, info.programs, info.pes);
  fmt::print("  commands        {} issued\n", commands);
  fmt::print("  TCM             {} B at most allocated by one kernel\n", tcm_peak);
  for (const auto& t : info.tensors)
    fmt::print("  tensor {:<8} {}x{} {} at 0x{:x} ({}){}\n", t.name, t.rows, t.cols,
               to_string(t.type), t.address, t.where,
               t.output ? ", output" : t.scratch ? ", scratch" : "");
  int status = 0;
  if (stopped) // an op log cut short verifies nothing
    fmt::print("  data            not replayed: the run was stopped before its end (no op "
               "log, tensors or verdict)\n");
  else
    status = print_data_result(c, r.data);
  s.write(rep);
  return s.close(status);
}

} // namespace kb
