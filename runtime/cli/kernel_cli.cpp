#include "runtime/cli/kernel_cli.hpp"

#include "runtime/cli/memory_budget.hpp"
#include "runtime/cli/run_cluster.hpp"
#include "runtime/cli/run_limits_cli.hpp"
#include "runtime/kernel/op_shipper.hpp"
#include "runtime/report/run_metrics.hpp"

#include "runtime/machine/machine.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/host/kernel_calls.hpp"
#include "runtime/host/kernel_run.hpp"
#include "kernels/kernel_library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace kb {

std::map<std::string, std::string> parse_kernel_args(const std::vector<std::string>& args,
                                                     const std::string& option) {
  std::map<std::string, std::string> out;
  for (const auto& a : args) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(fmt::format("{} {}: expected KEY=VALUE", option, a));
    if (!out.emplace(a.substr(0, eq), a.substr(eq + 1)).second)
      throw std::invalid_argument(
        fmt::format("{} {}: {} is given twice", option, a, a.substr(0, eq)));
  }
  return out;
}

void check_run_options(const run_cli& c) {
  if (c.rank > 0)
    return;
  auto given = [&](const char* o) { return c.given.count(o) > 0; };
  if (c.kernel.empty()) {
    for (const char* o : {"--arg", "--input", "--input-cast"})
      if (given(o))
        throw std::invalid_argument(fmt::format(
          "{}: only with --kernel (it is a kernel's; the built-in driver takes --M, --K, "
          "--N, --dtype, ...)", o));
    return;
  }
  // The driver's problem: a kernel takes it as its own arguments.
  for (const char* o : {"--M", "--K", "--N", "--dtype", "--out-dtype", "--tile"})
    if (given(o)) {
      std::string arg(o + 2); // --out-dtype: --arg out_dtype=...
      std::replace(arg.begin(), arg.end(), '-', '_');
      throw std::invalid_argument(fmt::format(
        "{}: not with --kernel; a kernel takes its sizes and types as arguments, e.g. "
        "--arg {}=... (`kernbench list-kernels` lists kernel {}'s)",
        o, arg, c.kernel));
    }
  for (const char* o : {"--op", "--op-kind", "--a-pinned", "--b-pinned", "--epilogue",
                        "--repeat"})
    if (given(o))
      throw std::invalid_argument(fmt::format(
        "{}: not with --kernel (it shapes the built-in driver's commands; a kernel issues "
        "its own)", o));
  if (given("--placement"))
    throw std::invalid_argument(
      "--placement: not with --kernel (it places the built-in driver's operands; a kernel's "
      "tensors are placed by the host, docs/kernels.md)");
  for (const char* o : {"--per-pe", "--trace-hops"})
    if (given(o))
      throw std::invalid_argument(
        fmt::format("{}: not written for kernel runs yet (their report is the kernel summary)", o));
}

void load_kernel_libraries(const run_cli& c) {
  if (c.kernel_libs.empty())
    return;
  if (c.kernel.empty())
    throw std::invalid_argument("--kernel-lib: only with --kernel (a library adds kernels to run)");
  for (const auto& path : c.kernel_libs)
    load_kernel_library(path);
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

int run_kernel_cli(const run_cli& c, topology_spec topo, const std::string& topology_path,
                   const std::string& components_path) {
  if (!c.trace.empty() || !c.trace_stream.empty() || !c.json.empty() || !c.csv.empty())
    throw std::invalid_argument(
      "--kernel: --trace, --trace-stream, --json and --csv are not written for kernel runs yet");
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
  kernel_run_options o;
  apply_run_limits(c, o.driver);
  o.driver.threads = c.threads;
  const auto delivery = parse_delivery(c.delivery);
  if (!delivery)
    throw std::invalid_argument(fmt::format("--delivery {}: expected direct or mailbox", c.delivery));
  o.driver.delivery = *delivery;
  o.driver.partition = c.partition;
  (void)partition_grouping(c.partition);
  o.driver.shards = c.shards;
  o.driver.record = false;
  const auto cut = parse_cut_unit(c.cut);
  if (!cut)
    throw std::invalid_argument(fmt::format("--cut {}: expected auto, sip or cube", c.cut));
  o.driver.cut = *cut;
  o.seed = c.seed;
  o.data = data_request_of(c);
  for (const auto& [name, path] : parse_kernel_args(c.inputs, "--input"))
    o.input_files[name] = path;
  o.input_cast = c.input_cast;
  // A grid is dealt to every PE unless --pes says otherwise.
  const std::string pes_opt = c.pes_given ? c.pes : "all";
  if (pes_opt != "all") {
    size_t used = 0;
    unsigned long n = 0;
    try {
      n = std::stoul(pes_opt, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != pes_opt.size() || n == 0 || pes_opt[0] == '-')
      throw std::invalid_argument(
        fmt::format("--pes {}: expected 'all' or a count from 1", pes_opt));
    o.pes = n;
  }
  // A split run (--procs, --peers): every process builds the same grid and
  // tensors; the others ship their op records to rank 0, which replays.
  std::unique_ptr<peer_group> peers =
    join_cluster(c, topo, *cut, topology_path, components_path, o.driver);
  if (c.rank > 0 && c.ship_ops)
    o.driver.ops = std::make_shared<op_shipper>();
  const kernel_run_result r = run_kernel(std::move(topo), def, args, o);
  if (!peers && c.rank == 0 && !r.run.error.empty()) {
    fmt::print(stderr, "kernbench run --kernel {}: {}\n", def.name, r.run.error);
    return 1;
  }
  if (const auto done = end_cluster(c, peers.get(), r.run.error))
    return *done;
  uint64_t end_ps = 0, commands = 0, pes = 0, tcm_peak = 0;
  for (const auto& n : r.run.result.nodes)
    for (const auto& f : n.figures) {
      if (f.name == "kernel.end_ps") {
        end_ps = std::max(end_ps, f.value);
        ++pes;
      } else if (f.name == "kernel.tcm_peak_bytes") {
        tcm_peak = std::max(tcm_peak, f.value);
      } else if (f.name.size() > 5 && f.name.ends_with(".done")) {
        ++commands;
      }
    }
  fmt::print("kernel {} on {} PE(s) of {}\n", def.name, pes, r.run.topology.file);
  fmt::print("  simulated time  {:.3f} us (the last kernel's return)\n", end_ps * 1e-6);
  if (const uint64_t k = kernel_latency_ps(r.run.result))
    fmt::print("  kernel latency  {:.3f} us (host launch -> host receipt of the last completion)\n",
               k * 1e-6);
  fmt::print("  commands        {} issued\n", commands);
  fmt::print("  TCM             {} B at most allocated by one kernel\n", tcm_peak);
  for (const auto& [name, p] : r.tensors)
    fmt::print("  tensor {:<8} at 0x{:x} ({})\n", name, p.address, to_string(p.type));
  return print_data_result(c, r.data);
}

} // namespace kb
