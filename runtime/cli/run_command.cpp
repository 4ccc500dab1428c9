#include "runtime/cli/run_command.hpp"

#include "actors/builtin_kinds.hpp"
#include "actors/stage_timing.hpp"
#include "runtime/address.hpp"
#include "runtime/cli/memory_budget.hpp"
#include "runtime/config/impl_registry.hpp"
#include "runtime/config/print_components.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/driver/driver_run.hpp"
#include "runtime/plan/plan_error.hpp"
#include "runtime/report/atomic_file.hpp"
#include "runtime/report/run_report.hpp"
#include "runtime/trace/trace_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace kb {

std::string default_config_dir() {
  if (const char* d = std::getenv("KB_CONFIG_DIR"); d && *d)
    return d;
  return KB_DEFAULT_CONFIG_DIR;
}

namespace {

struct run_cli {
  std::string topology;
  std::string components;
  std::string op = "gemm";
  std::string op_kind = "exp";
  uint32_t m = 1024, k = 1024, n = 1024;
  std::vector<uint32_t> tile{128, 128, 128};
  std::string dtype_name = "f16";
  std::string out_dtype_name;
  bool a_pinned = false, b_pinned = false;
  std::vector<std::string> epilogue;
  uint32_t repeat = 1;
  uint32_t pes = 1;
  size_t threads = 1;
  std::string json, trace;
  bool trace_hops = false;
};

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Memory per tile, measured on the default machine (512^3 GEMM in 128^3
// tiles, --repeat 1 vs 64: +2.29 KB per tile, +7.97 KB with --json): a
// tile's plan and token (its stages, each with its unit's name and DMA
// geometry) while its command runs, and the trace records of its stages
// when --json or --trace keeps them until the end of the run.
constexpr uint64_t bytes_per_tile_plan = 2300;
constexpr uint64_t bytes_per_tile_records = 6000;
constexpr uint64_t max_tiles_per_command = UINT32_MAX;

dtype dtype_or_throw(const std::string& name, const char* opt) {
  if (auto d = parse_dtype(name))
    return *d;
  throw std::invalid_argument(fmt::format("{} '{}': unknown dtype (f32, f16, bf16, i8, i32)",
                                          opt, name));
}

/// One command for the PE at index `p`, with its own A/B/C regions in the
/// cube's HBM.
pe_command make_command(const run_cli& c, uint32_t p, const std::string& prefix) {
  const dtype in = dtype_or_throw(c.dtype_name, "--dtype");
  const std::optional<dtype> out =
    c.out_dtype_name.empty() ? std::nullopt
                             : std::optional<dtype>{dtype_or_throw(c.out_dtype_name, "--out-dtype")};
  const uint64_t eb = dtype_bytes(in), ob = dtype_bytes(out.value_or(in));
  if (c.op == "gemm") {
    if (c.tile.size() != 3)
      throw std::invalid_argument("--tile takes TM TK TN for --op gemm");
    const uint64_t a = align_up(uint64_t{c.m} * c.k * eb, 4096);
    const uint64_t b = align_up(uint64_t{c.k} * c.n * eb, 4096);
    const uint64_t cc = align_up(uint64_t{c.m} * c.n * ob, 4096);
    const uint64_t region = align_up(a + b + cc, 1u << 20);
    if (region * (p + 1) > global_address::max_offset)
      throw std::invalid_argument("the operands of all PEs do not fit in 64 GiB of HBM");
    gemm_plan_args g;
    g.m = c.m;
    g.k = c.k;
    g.n = c.n;
    g.tile_m = c.tile[0];
    g.tile_k = c.tile[1];
    g.tile_n = c.tile[2];
    g.in_dtype = in;
    g.out_dtype = out;
    g.a_addr = region * p;
    g.b_addr = g.a_addr + a;
    g.c_addr = g.b_addr + b;
    g.pe_prefix = prefix;
    g.a_pinned = c.a_pinned;
    g.b_pinned = c.b_pinned;
    for (const auto& e : c.epilogue) {
      auto colon = e.find(':');
      auto op = parse_math_op(e.substr(0, colon));
      if (!op)
        throw std::invalid_argument(fmt::format("--epilogue '{}': unknown op", e));
      epilogue_op eo{*op, std::nullopt};
      if (colon != std::string::npos) {
        auto sc = parse_epilogue_scope(e.substr(colon + 1));
        if (!sc)
          throw std::invalid_argument(fmt::format(
            "--epilogue '{}': unknown scope (k_tile or output_tile)", e));
        eo.scope = *sc;
      }
      g.epilogue.push_back(eo);
    }
    return g;
  }
  if (c.op == "math") {
    if (c.tile.size() != 2)
      throw std::invalid_argument("--tile takes TM TN for --op math");
    auto op = parse_math_op(c.op_kind);
    if (!op)
      throw std::invalid_argument(fmt::format("--op-kind '{}': unknown op", c.op_kind));
    const uint64_t s = align_up(uint64_t{c.m} * c.n * eb, 4096);
    const uint64_t d = align_up(uint64_t{c.m} * c.n * ob, 4096);
    const uint64_t region = align_up(s + d, 1u << 20);
    math_plan_args m;
    m.m = c.m;
    m.n = c.n;
    m.tile_m = c.tile[0];
    m.tile_n = c.tile[1];
    m.op = *op;
    m.in_dtype = in;
    m.out_dtype = out;
    m.src_addr = region * p;
    m.dst_addr = m.src_addr + s;
    m.pe_prefix = prefix;
    return m;
  }
  throw std::invalid_argument(fmt::format("--op '{}': expected gemm or math", c.op));
}

/// Tiles of one command (0 when a shape or tile is zero: the plan
/// generator reports that with its own message).
uint64_t tiles_per_command(const run_cli& c) {
  auto ceil_div = [](uint64_t a, uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; };
  if (c.op == "gemm" && c.tile.size() == 3)
    return mul_sat(mul_sat(ceil_div(c.m, c.tile[0]), ceil_div(c.k, c.tile[1])),
                   ceil_div(c.n, c.tile[2]));
  if (c.op == "math" && c.tile.size() == 2)
    return mul_sat(ceil_div(c.m, c.tile[0]), ceil_div(c.n, c.tile[1]));
  return 0;
}

/// Every command's plan is held while it runs, and with --json or --trace
/// every stage's records until the end: refuse up front what would not fit.
void check_run_memory(const run_cli& c) {
  const uint64_t tiles = tiles_per_command(c);
  if (tiles > max_tiles_per_command)
    throw std::invalid_argument(fmt::format(
      "--tile {}: {} tiles per command, more than the limit of {} (tile ids are 32-bit)",
      fmt::join(c.tile, " "), tiles, max_tiles_per_command));
  const bool record = !c.json.empty() || !c.trace.empty();
  const uint64_t per_tile = bytes_per_tile_plan + (record ? bytes_per_tile_records : 0);
  const uint64_t total_tiles = mul_sat(mul_sat(tiles, c.repeat), c.pes);
  check_memory(fmt::format("--M {} --K {} --N {} --tile {} --repeat {} --pes {}{} ({} tiles)",
                           c.m, c.k, c.n, fmt::join(c.tile, " "), c.repeat, c.pes,
                           record ? " with records for --json/--trace" : "", total_tiles),
               mul_sat(total_tiles, per_tile));
}

/// The first tile is the largest (edge tiles are remainders): if one of its
/// stages alone takes longer than kb::max_time_ps on this machine, the run's
/// time sums could not be represented. Refuse it before running.
void check_stage_times(const run_cli& c, const topology_spec& topo, const std::string& pe,
                       const pipeline_plan& plan) {
  if (plan.tiles.empty())
    return;
  std::optional<stage_timing> timing;
  try {
    timing.emplace(topo, pe);
  } catch (const std::exception&) {
    return; // a machine the unloaded model does not cover
  }
  for (const stage& s : plan.tiles.front().stages) {
    SimTime t;
    try {
      t = timing->service(s);
    } catch (const std::domain_error&) {
      continue;
    }
    if (!representable(t))
      throw std::invalid_argument(fmt::format(
        "--tile {}: one {} stage takes {} on this machine ({}), which exceeds {}",
        fmt::join(c.tile, " "), to_string(s.type),
        t.is_infinite() ? std::string("more than 2^64 ps") : fmt::format("{} ps", t.ps()),
        topo.file, max_time_reason));
  }
}

uint64_t param_or(const topology_spec& t, const std::string& kind,
                  const std::string& key, uint64_t fallback) {
  for (const auto& n : t.nodes)
    if (n.kind == kind)
      return n.params.get_or<uint64_t>(key, fallback);
  return fallback;
}

int run(const run_cli& c) {
  const std::string dir = default_config_dir();
  const std::string topo_path = c.topology.empty() ? dir + "/topology.yaml" : c.topology;
  const std::string comp_path = c.components.empty() ? dir + "/components.yaml" : c.components;
  // PE prefixes come from the topology; load it once to pick the PEs.
  const topology_spec topo = load_topology(topo_path, load_impl_registry(comp_path),
                                           builtin_kinds().catalog());
  std::vector<std::string> pes = pe_prefixes(topo);
  if (c.pes == 0 || c.pes > pes.size())
    throw std::invalid_argument(fmt::format("--pes {}: the topology has {} PE(s)",
                                            c.pes, pes.size()));
  pes.resize(c.pes);

  check_run_memory(c);
  // A bad shape or tile is a usage error: check it before building anything.
  try {
    const pe_command first = make_command(c, 0, pes[0]);
    if (auto* g = std::get_if<gemm_plan_args>(&first))
      check_stage_times(c, topo, pes[0], generate_gemm_plan(*g));
    else if (auto* m = std::get_if<math_plan_args>(&first))
      check_stage_times(c, topo, pes[0], generate_math_plan(*m));
  } catch (const plan_error& e) {
    throw std::invalid_argument(fmt::format("--op {}: {}", c.op, e.what()));
  }

  report_input rep;
  std::map<std::string, std::shared_ptr<const driver_program>> programs;
  for (uint32_t p = 0; p < pes.size(); ++p) {
    auto prog = std::make_shared<driver_program>();
    for (uint32_t r = 0; r < c.repeat; ++r)
      prog->commands.push_back(make_command(c, p, pes[p]));
    if (p == 0)
      rep.program = prog->commands;
    programs[pes[p]] = prog;
  }
  const bool record = !c.json.empty() || !c.trace.empty();
  driver_run dr = run_driver(topo_path, comp_path, programs, c.threads, record, c.trace_hops);
  if (!dr.error.empty()) {
    fmt::print(stderr, "kernbench run: {}\n", dr.error);
    return 1;
  }
  const run_result& result = dr.result;

  rep.topology_file = topo_path;
  rep.pes = pes;
  rep.threads = c.threads;
  rep.clock_period_ps = topo.clock_period_ps;
  rep.mac_rows = param_or(topo, "pe_gemm", "mac_rows", 32);
  rep.mac_cols = param_or(topo, "pe_gemm", "mac_cols", 32);
  rep.math_lanes = param_or(topo, "pe_math", "lanes", 64);
  for (const auto& n : topo.nodes)
    if (n.kind == "hbm_ctrl") {
      rep.hbm_mbps = n.params.get_or<Bandwidth>("bandwidth_gbps", Bandwidth::gbps(512)).mbps;
      break;
    }
  rep.cubes = 1;
  rep.result = &result;
  rep.names = dr.names;
  rep.records = std::move(dr.records);
  write_summary(std::cout, rep);
  if (!c.json.empty())
    write_file_atomically(c.json, "--json file", report_json(rep));
  if (!c.trace.empty())
    write_trace(c.trace, rep.names, rep.records);
  return 0;
}

} // namespace

CLI::App* add_run_command(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<run_cli>();
  auto* cmd = app.add_subcommand(
    "run", "run the built-in driver on PEs of the modelled machine and report "
           "(default: 1024x1024x1024 f16 GEMM, tiles 128^3, one PE)");
  cmd->add_option("--topology", c->topology, "topology YAML (default config/topology.yaml)");
  cmd->add_option("--components", c->components, "component registry YAML");
  cmd->add_option("--op", c->op, "gemm or math")->capture_default_str();
  cmd->add_option("--op-kind", c->op_kind, "math op for --op math (exp, add, relu, ...)")
    ->capture_default_str();
  cmd->add_option("--M", c->m, "rows of A / C")->capture_default_str();
  cmd->add_option("--K", c->k, "columns of A, rows of B")->capture_default_str();
  cmd->add_option("--N", c->n, "columns of B / C")->capture_default_str();
  cmd->add_option("--tile", c->tile, "tile shape: TM TK TN (gemm) or TM TN (math)")
    ->expected(2, 3);
  cmd->add_option("--dtype", c->dtype_name, "f16, bf16, f32, i8, i32")->capture_default_str();
  cmd->add_option("--out-dtype", c->out_dtype_name, "output dtype (default: --dtype)");
  cmd->add_flag("--a-pinned", c->a_pinned, "A already in TCM: no DMA reads of A");
  cmd->add_flag("--b-pinned", c->b_pinned, "B already in TCM: no DMA reads of B");
  cmd->add_option("--epilogue", c->epilogue, "epilogue ops OP:SCOPE (scope k_tile or output_tile)");
  cmd->add_option("--repeat", c->repeat, "commands issued back to back per PE")
    ->capture_default_str()
    ->check(CLI::Range(1, 1000000));
  cmd->add_option("--pes", c->pes, "PEs of the cube running the driver")
    ->capture_default_str()
    ->check(CLI::Range(1, 65536));
  cmd->add_option("--threads", c->threads, "CAF worker threads")
    ->capture_default_str()
    ->check(CLI::Range(1, 1024));
  cmd->add_option("--json", c->json, "write the results as JSON");
  cmd->add_option("--trace", c->trace, "write the trace (.json: Chrome/Perfetto; else Cap'n Proto)");
  cmd->add_flag("--trace-hops", c->trace_hops,
                "also trace every message hop (send, arrival, src, dst, kind, tile)");
  cmd->callback([c, &exit_code] { exit_code = run(*c); });
  return cmd;
}

CLI::App* add_list_components_command(CLI::App& app, int& exit_code) {
  auto comps = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("list-components",
                                 "print every node kind, its impls and its config keys");
  cmd->add_option("--components", *comps, "component registry YAML");
  cmd->callback([comps, &exit_code] {
    const std::string path =
      comps->empty() ? default_config_dir() + "/components.yaml" : *comps;
    print_components(std::cout, builtin_kinds().catalog(), load_impl_registry(path));
    exit_code = 0;
  });
  return cmd;
}

} // namespace kb
