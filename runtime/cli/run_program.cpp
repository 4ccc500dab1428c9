#include "runtime/cli/run_program.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/address.hpp"
#include "runtime/cli/memory_budget.hpp"
#include "runtime/predict/service_model.hpp"
#include "runtime/schedule/problem.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace kb {

namespace {


uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Memory per tile, measured on the default machine. PE_SCHEDULER builds a
// tile's plan when it feeds it, so a command holds the tiles in flight, not
// all of them: 4096^3 in 32^3 tiles (2.1 M tiles) peaks 0.8 MB above 128^3
// tiles (32 K), under 1 byte per tile; 64 B is a generous bound. With --json
// or --trace every stage's records stay until the end (512^3 GEMM, --repeat
// 1 vs 64: +5.6 KB per tile).
constexpr uint64_t bytes_per_tile_plan = 64;
constexpr uint64_t bytes_per_tile_records = 6000;
constexpr uint64_t max_tiles_per_command = UINT32_MAX;

dtype dtype_or_throw(const std::string& name, const char* opt) {
  if (auto d = parse_dtype(name))
    return *d;
  throw std::invalid_argument(fmt::format("{} '{}': unknown dtype (f32, f16, bf16, i8, i32)",
                                          opt, name));
}

} // namespace

pe_place place_of(const topology_spec& topo, const std::string& prefix) {
  const node_spec* cpu = topo.find_node(prefix + ".pe_cpu");
  if (!cpu || !cpu->place.pe)
    throw std::invalid_argument(fmt::format("'{}' is not a PE of {}", prefix, topo.file));
  return {*cpu->place.sip, *cpu->place.cube, *cpu->place.pe};
}

/// Bytes of each operand of one command (4 KiB pages; a MATH command has
/// no B).
operand_sizes sizes_of(const run_cli& c) {
  const dtype in = dtype_or_throw(c.dtype_name, "--dtype");
  const dtype out =
    c.out_dtype_name.empty() ? in : dtype_or_throw(c.out_dtype_name, "--out-dtype");
  const uint64_t eb = dtype_bytes(in), ob = dtype_bytes(out);
  if (c.op == "math")
    return {align_up(uint64_t{c.m} * c.n * eb, 4096), 0, align_up(uint64_t{c.m} * c.n * ob, 4096),
            {}};
  operand_sizes s{align_up(uint64_t{c.m} * c.k * eb, 4096),
                  align_up(uint64_t{c.k} * c.n * eb, 4096),
                  align_up(uint64_t{c.m} * c.n * ob, 4096),
                  {}};
  for (const auto& e : c.epilogue)
    if (const auto op = parse_math_op(e.substr(0, e.find(':'))); op && takes_operand(*op))
      s.extra.push_back(align_up(epilogue_operand_rows(*op, c.m) * uint64_t{c.n} * 4, 4096));
  return s;
}

uint32_t epilogue_operand_rows(math_op op, uint32_t m) {
  return op == math_op::add || op == math_op::mul ? m : 1;
}

/// One command on the operands the host placed for its PE.
pe_command make_command(const run_cli& c, const operand_addresses& at) {
  const dtype in = dtype_or_throw(c.dtype_name, "--dtype");
  const std::optional<dtype> out =
    c.out_dtype_name.empty() ? std::nullopt
                             : std::optional<dtype>{dtype_or_throw(c.out_dtype_name, "--out-dtype")};
  if (c.op == "gemm") {
    if (c.tile.size() != 3)
      throw std::invalid_argument("--tile takes TM TK TN for --op gemm");
    gemm_plan_args g;
    g.m = c.m;
    g.k = c.k;
    g.n = c.n;
    g.tile_m = c.tile[0];
    g.tile_k = c.tile[1];
    g.tile_n = c.tile[2];
    g.in_dtype = in;
    g.out_dtype = out;
    g.a_addr = at.a;
    g.b_addr = at.b;
    g.c_addr = at.c;
    g.a_pinned = c.a_pinned;
    g.b_pinned = c.b_pinned;
    size_t operand = 0;
    for (const auto& e : c.epilogue) {
      // OP:SCOPE[:VALUE]
      const auto colon = e.find(':');
      const auto colon2 = colon == std::string::npos ? colon : e.find(':', colon + 1);
      auto op = parse_math_op(e.substr(0, colon));
      if (!op)
        throw std::invalid_argument(fmt::format("--epilogue '{}': unknown op", e));
      epilogue_op eo;
      eo.op = *op;
      if (colon != std::string::npos) {
        auto sc = parse_epilogue_scope(e.substr(colon + 1, colon2 - colon - 1));
        if (!sc)
          throw std::invalid_argument(fmt::format(
            "--epilogue '{}': unknown scope (k_tile or output_tile)", e));
        eo.scope = *sc;
      }
      if (colon2 != std::string::npos) {
        if (*op != math_op::scale)
          throw std::invalid_argument(fmt::format(
            "--epilogue '{}': only scale takes a value (scale:SCOPE:VALUE)", e));
        const std::string v = e.substr(colon2 + 1);
        size_t used = 0;
        try {
          eo.value = std::stod(v, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != v.size() || !std::isfinite(eo.value))
          throw std::invalid_argument(
            fmt::format("--epilogue '{}': the value '{}' is not a finite number", e, v));
      }
      // The host placed a tensor for each op that reads one (f32: a 1 x N
      // row for bias and dequant, M x N for add and mul).
      if (takes_operand(*op) && operand < at.extra.size())
        eo.operand = packed_view(at.extra[operand++], epilogue_operand_rows(*op, c.m), c.n,
                                 dtype::f32);
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
    math_plan_args m;
    m.m = c.m;
    m.n = c.n;
    m.tile_m = c.tile[0];
    m.tile_n = c.tile[1];
    m.op = *op;
    m.in_dtype = in;
    m.out_dtype = out;
    m.src_addr = at.a;
    m.dst_addr = at.c;
    return m;
  }
  throw std::invalid_argument(fmt::format("--op '{}': expected gemm or math", c.op));
}

uint64_t data_bytes_estimate(const run_cli& c, const operand_sizes& sizes, size_t pes) {
  uint64_t per_pe = add_sat(add_sat(sizes.a, sizes.b), sizes.c);
  for (uint64_t e : sizes.extra)
    per_pe = add_sat(per_pe, e);
  const uint64_t mn = mul_sat(c.m, c.n);
  const uint64_t f64 = mul_sat(8, add_sat(add_sat(mul_sat(c.m, c.k), mul_sat(c.k, c.n)), mn));
  return add_sat(mul_sat(pes, add_sat(mul_sat(2, per_pe), mul_sat(4, mn))), f64);
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

/// Every command's plan is held while it runs, and with --trace every
/// stage's records until the end: refuse up front what would not fit.
void check_run_memory(const run_cli& c, size_t pes) {
  const uint64_t tiles = tiles_per_command(c);
  if (tiles > max_tiles_per_command)
    throw std::invalid_argument(fmt::format(
      "--tile {}: {} tiles per command, more than the limit of {} (tile ids are 32-bit)",
      fmt::join(c.tile, " "), tiles, max_tiles_per_command));
  const bool record = !c.trace.empty();
  const uint64_t per_tile = bytes_per_tile_plan + (record ? bytes_per_tile_records : 0);
  const uint64_t total_tiles = mul_sat(mul_sat(tiles, c.repeat), pes);
  check_memory(fmt::format("--M {} --K {} --N {} --tile {} --repeat {} --pes {}{} ({} tiles)",
                           c.m, c.k, c.n, fmt::join(c.tile, " "), c.repeat, c.pes,
                           record ? " with records for --trace" : "", total_tiles),
               mul_sat(total_tiles, per_tile));
}

/// The first tile is the largest (edge tiles are remainders): if one of its
/// stages alone takes longer than kb::max_time_ps on this machine, the run's
/// time sums could not be represented. Refuse it before running.
void check_stage_times(const run_cli& c, const topology_spec& topo, const std::string& pe,
                       const tile_source& tiles, std::shared_ptr<const fabric_map> fabric) {
  if (tiles.size() == 0 || !fabric)
    return;
  std::optional<service_model> timing;
  try {
    timing.emplace(topo, builtin_kinds(), pe, std::move(fabric));
  } catch (const std::exception&) {
    return; // a machine the unloaded model does not cover
  }
  const std::string machine =
    c.set.empty() ? topo.file
                  : fmt::format("{} with --set {}", topo.file, fmt::join(c.set, " --set "));
  // The first tile has every stage type at its full tile size: build it
  // alone (a plan of every tile would grow with the problem).
  for (const stage& s : tiles.tile(0).stages) {
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
        machine, max_time_reason));
    // The II predictor schedules the body in cycles of the clock.
    const uint64_t cycles = timing->clock().to_cycles_ceil(t).count();
    if (cycles > sched::max_schedule_cycles)
      throw std::invalid_argument(fmt::format(
        "--tile {}: one {} stage takes {} cycles on this machine ({}), which exceeds the "
        "limit of {} cycles (2^31 - 1) for a stage of the II predictor's schedule",
        fmt::join(c.tile, " "), to_string(s.type), cycles, machine,
        sched::max_schedule_cycles));
  }
}

} // namespace kb
