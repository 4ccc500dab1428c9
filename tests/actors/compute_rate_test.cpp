// Compute rate by dtype (ADR-0032): PE_GEMM and PE_MATH at non-default
// rates, each time derived by hand; the rate keys' parsing and their errors.
// The machine is a tile feeder and the one unit under test, wired both ways
// by 1 ns wires: the unit takes the token at t0 = 1 ns and the tile-done
// notice arrives 1 ns after the stage ends. Clock 1 GHz: 1 cycle = 1 ns.

#include "actors/compute_rate.hpp"
#include "actors/pe_gemm.hpp"
#include "actors/pe_math.hpp"
#include "runtime/config/impl_doc.hpp"
#include "tests/actors/harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kb {
namespace {

using namespace kb::test;

pe_gemm::config gemm_at(std::initializer_list<std::pair<dtype, compute_rate>> rates) {
  pe_gemm::config c; // R = C = 32, 1 GHz
  for (const auto& [t, r] : rates)
    c.rates.of(t) = r;
  return c;
}

pe_math::config math_at(std::initializer_list<std::pair<dtype, compute_rate>> rates) {
  pe_math::config c; // 64 lanes, pipeline 4, cheap 1, expensive 4, 1 GHz
  for (const auto& [t, r] : rates)
    c.rates.of(t) = r;
  return c;
}

/// Runs `s` alone on a PE whose `name` unit is built by `f`; returns the
/// tile-done time and the unit's busy time of `lane`.
std::pair<uint64_t, uint64_t> run_stage(const std::string& name, node_factory f, stage s,
                                        const std::string& lane) {
  test_machine sim;
  const std::string sched = unit(0, "pe_scheduler"), u = unit(0, name);
  sim.add_node(sched, make_node_factory<tile_feeder>(std::vector{tile(0, {std::move(s)})},
                                                     uint64_t{1}));
  sim.add_node(u, std::move(f));
  sim.add_link(sched, u, ns(1), std::nullopt, 4);
  sim.add_link(u, sched, ns(1), std::nullopt, 4);
  run_result r = run(sim);
  EXPECT_EQ(r.error, "");
  const auto done = series_of(r, sched, "done_ps");
  EXPECT_EQ(done.size(), 1u);
  return {done.empty() ? 0 : done.front(), figure_of(r, u, lane + ".busy_ps")};
}

// -- PE_GEMM ------------------------------------------------------------------

// 128x128x128 on 32x32: ceil(128/32) * ceil(128/32) * 128 = 2048 passes.
// f16 at 1: 2048 + 32 + 32 = 2112; f32 at 1/4: 2048 * 4 + 64 = 8256;
// i8 at 2: 2048 / 2 + 64 = 1088; bf16 at 2/3: 2048 * 3 / 2 + 64 = 3136;
// i32 at 3: ceil(2048 / 3) = ceil(682.67) = 683, + 64 = 747.
TEST(ComputeRate, GemmTileCyclesScaleThePassesNotTheFill) {
  const auto c = gemm_at({{dtype::f32, {1, 4}}, {dtype::i8, {2, 1}},
                          {dtype::bf16, {2, 3}}, {dtype::i32, {3, 1}}});
  EXPECT_EQ(pe_gemm::tile_cycles(c, 128, 128, 128, dtype::f16), Cycles{2112});
  EXPECT_EQ(pe_gemm::tile_cycles(c, 128, 128, 128, dtype::f32), Cycles{8256});
  EXPECT_EQ(pe_gemm::tile_cycles(c, 128, 128, 128, dtype::i8), Cycles{1088});
  EXPECT_EQ(pe_gemm::tile_cycles(c, 128, 128, 128, dtype::bf16), Cycles{3136});
  EXPECT_EQ(pe_gemm::tile_cycles(c, 128, 128, 128, dtype::i32), Cycles{747});
  // Edge tile 2x5x32: 1 * 1 * 5 = 5 passes; at 2: ceil(5/2) = 3, + 64 = 67.
  EXPECT_EQ(pe_gemm::tile_cycles(c, 2, 5, 32, dtype::i8), Cycles{67});
  // The defaults (every rate 1) keep today's 2112 for every dtype.
  for (size_t i = 0; i < dtype_rates::count; ++i)
    EXPECT_EQ(pe_gemm::tile_cycles(pe_gemm::config{}, 128, 128, 128, static_cast<dtype>(i)),
              Cycles{2112});
}

// The same f32 tile run on the actor: t0 = 1 ns, busy 8256 ns, ends 8257 ns,
// tile-done 8258 ns.
TEST(ComputeRate, GemmActorTakesTheF32TileAtAQuarterRate) {
  stage s = gemm_stage(128, 128, 128);
  s.params.in_dtype = s.params.out_dtype = dtype::f32;
  const auto [done, busy] = run_stage(
    "pe_gemm", make_node_factory<pe_gemm>(gemm_at({{dtype::f32, {1, 4}}})), s, "gemm");
  EXPECT_EQ(done, 8258000u);
  EXPECT_EQ(busy, 8256000u);
}

// i8 at 2: 1088 cycles, tile-done 1 + 1088 + 1 = 1090 ns.
TEST(ComputeRate, GemmActorTakesTheI8TileAtTwiceTheRate) {
  stage s = gemm_stage(128, 128, 128);
  s.params.in_dtype = dtype::i8;
  s.params.out_dtype = dtype::i32;
  const auto [done, busy] = run_stage(
    "pe_gemm", make_node_factory<pe_gemm>(gemm_at({{dtype::i8, {2, 1}}})), s, "gemm");
  EXPECT_EQ(done, 1090000u);
  EXPECT_EQ(busy, 1088000u);
}

// -- PE_MATH ------------------------------------------------------------------

// exp (op cost 4) on 16384 f32 elements at f32 rate 1/2:
// ceil(16384 * 2 / (64 * 1)) = 512 groups, 512 * 4 + 4 = 2052 cycles
// (f16: 256 * 4 + 4 = 1028). relu (cost 1) on 1000 bf16 at 3/2:
// ceil(1000 * 2 / (64 * 3)) = ceil(10.42) = 11, + 4 = 15. A stage runs at
// the slower of its in and out rates: dequant i8 -> f16 with i8 at 4 runs
// at f16's 1 (1028); relu i8 -> i8 on 100 elements at 4:
// ceil(100 / 256) = 1, + 4 = 5.
TEST(ComputeRate, MathStageCyclesScaleTheLanes) {
  const auto c = math_at({{dtype::f32, {1, 2}}, {dtype::bf16, {3, 2}}, {dtype::i8, {4, 1}}});
  EXPECT_EQ(pe_math::stage_cycles(c, math_op::exp, 16384, dtype::f32, dtype::f32),
            Cycles{2052});
  EXPECT_EQ(pe_math::stage_cycles(c, math_op::exp, 16384, dtype::f16, dtype::f16),
            Cycles{1028});
  EXPECT_EQ(pe_math::stage_cycles(c, math_op::relu, 1000, dtype::bf16, dtype::bf16),
            Cycles{15});
  EXPECT_EQ(pe_math::stage_cycles(c, math_op::dequant, 16384, dtype::i8, dtype::f16),
            Cycles{1028});
  EXPECT_EQ(pe_math::stage_cycles(c, math_op::relu, 100, dtype::i8, dtype::i8), Cycles{5});
  // f16 -> f32 at f32's 1/2: 2052 again.
  EXPECT_EQ(pe_math::stage_cycles(c, math_op::exp, 16384, dtype::f16, dtype::f32),
            Cycles{2052});
}

// The f32 exp on the actor: t0 = 1 ns, busy 2052 ns, tile-done 2054 ns.
TEST(ComputeRate, MathActorTakesF32AtHalfRate) {
  stage s = math_stage(math_op::exp, 16384);
  s.params.in_dtype = s.params.out_dtype = dtype::f32;
  const auto [done, busy] = run_stage(
    "pe_math", make_node_factory<pe_math>(math_at({{dtype::f32, {1, 2}}})), s, "math");
  EXPECT_EQ(done, 2054000u);
  EXPECT_EQ(busy, 2052000u);
}

// -- the rate keys ------------------------------------------------------------

TEST(ComputeRate, RatesParseExactly) {
  EXPECT_EQ(parse_compute_rate("1"), (compute_rate{1, 1}));
  EXPECT_EQ(parse_compute_rate("2"), (compute_rate{2, 1}));
  EXPECT_EQ(parse_compute_rate("1/4"), (compute_rate{1, 4}));
  EXPECT_EQ(parse_compute_rate("6/4"), (compute_rate{3, 2}));
  EXPECT_EQ(parse_compute_rate("0.25"), (compute_rate{1, 4}));
  EXPECT_EQ(parse_compute_rate("1.5"), (compute_rate{3, 2}));
  EXPECT_EQ(parse_compute_rate(".5"), (compute_rate{1, 2}));
  for (const char* bad : {"0", "0/3", "0.0", "3/0", "-1", "-1/4", "+2", "abc", "", "1/",
                          "/4", "1.", "2x", "1e3", "1/2/3", "4294967296", "1/4294967296",
                          "0.1234567891"})
    EXPECT_EQ(parse_compute_rate(bad), std::nullopt) << bad;
}

/// `yaml` read as the params of `kind` in t.yaml (defaults filled in).
param_reader params(const impl_doc& doc, const std::string& yaml) {
  return resolve_params(param_reader(YAML::Load(yaml), "t.yaml", doc.kind, 1), doc, {});
}

TEST(ComputeRate, ConfigReadsEveryDtypesRateWithOneAsTheDefault) {
  const machine_context ctx;
  const auto g = pe_gemm::read_config(
    params(pe_gemm::decl().doc("pe_gemm_v1"), "mac_rows: 32\nrate_f32: 1/4\nrate_i8: 2\n"), ctx);
  EXPECT_EQ(g.rates.of(dtype::f32), (compute_rate{1, 4}));
  EXPECT_EQ(g.rates.of(dtype::i8), (compute_rate{2, 1}));
  EXPECT_EQ(g.rates.of(dtype::f16), (compute_rate{1, 1}));
  EXPECT_EQ(g.rates.of(dtype::bf16), (compute_rate{1, 1}));
  EXPECT_EQ(g.rates.of(dtype::i32), (compute_rate{1, 1}));
  const auto m = pe_math::read_config(params(pe_math::decl().doc("pe_math_v1"), "rate_bf16: 0.5\n"), ctx);
  EXPECT_EQ(m.rates.of(dtype::bf16), (compute_rate{1, 2}));
  EXPECT_EQ(m.rates.of(dtype::f32), (compute_rate{1, 1}));
  // Every dtype has a documented key in both kinds.
  for (const impl_doc& d : {pe_gemm::decl().doc("pe_gemm_v1"), pe_math::decl().doc("pe_math_v1")})
    for (const char* k : {"rate_f32", "rate_f16", "rate_bf16", "rate_i8", "rate_i32"})
      EXPECT_TRUE(std::any_of(d.params.begin(), d.params.end(),
                              [&](const param_doc& p) { return p.name == k; }))
        << d.kind << " " << k;
}

std::string config_error_of(const impl_doc& doc, const std::string& yaml) {
  const machine_context ctx;
  try {
    if (doc.kind == "pe_gemm")
      (void)pe_gemm::read_config(params(doc, yaml), ctx);
    else
      (void)pe_math::read_config(params(doc, yaml), ctx);
  } catch (const config_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ComputeRate, ABadRateIsRefusedNamingFileLineAndKey) {
  const std::string tail = " is not a rate: expected a positive integer n, a fraction n/d or "
                           "a decimal such as 0.25 (work per cycle relative to f16)";
  EXPECT_EQ(config_error_of(pe_gemm::decl().doc("pe_gemm_v1"), "mac_rows: 32\nrate_i8: 0\n"),
            "t.yaml:2: pe_gemm.rate_i8: '0'" + tail);
  EXPECT_EQ(config_error_of(pe_gemm::decl().doc("pe_gemm_v1"), "rate_f32: -2\n"),
            "t.yaml:1: pe_gemm.rate_f32: '-2'" + tail);
  EXPECT_EQ(config_error_of(pe_math::decl().doc("pe_math_v1"), "lanes: 64\n\nrate_bf16: fast\n"),
            "t.yaml:3: pe_math.rate_bf16: 'fast'" + tail);
  EXPECT_EQ(config_error_of(pe_math::decl().doc("pe_math_v1"), "rate_i32: 1/0\n"),
            "t.yaml:1: pe_math.rate_i32: '1/0'" + tail);
}

} // namespace
} // namespace kb
