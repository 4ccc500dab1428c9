// The II prediction (issue 4, item 6): unloaded stage times from the timing
// model, the steady-state body as a scheduling problem, its modulo II set
// beside the simulated interval, and the `modulo` feed policy.

#include "tests/pipeline/pipeline_support.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/config/config_error.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/plan/gemm_plan.hpp"
#include "runtime/predict/service_model.hpp"
#include "runtime/predict/tile_schedule.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <tuple>
#include <sstream>

namespace kb {
namespace {

using test::config_file;

topology_spec default_topology() {
  return load_topology(config_file("topology.yaml"), builtin_kinds().catalog());
}

/// The default topology with the PE scheduler's entry rewritten.
std::string topology_with_scheduler(const std::string& entry, const std::string& name) {
  std::ifstream in(config_file("topology.yaml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string from = "pe_scheduler: {impl: pe_scheduler_v1}";
  const auto at = yaml.find(from);
  EXPECT_NE(at, std::string::npos);
  yaml.replace(at, from.size(), entry);
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << yaml;
  return path;
}

TEST(StageTiming, ReproducesTheWorkedExampleStageByStage) {
  // DESIGN §4: 128×128×128 f16 — reads 244 ns each, fetch 130 (A+B 64 KiB),
  // GEMM 2112, store 66 (32 KiB), write 244 (until the ack).
  const auto topo = default_topology();
  const service_model t(topo, builtin_kinds(), "sip0.cube0.pe0");
  const auto plan = generate_gemm_plan(test::gemm(128, 128, 128));
  ASSERT_EQ(plan.tiles.size(), 1u);
  std::vector<uint64_t> ns;
  for (const auto& s : plan.tiles[0].stages)
    ns.push_back(t.service(s).ps() / 1000);
  EXPECT_EQ(ns, (std::vector<uint64_t>{244, 244, 130, 2112, 66, 244}));
}

TEST(TileSchedule, TheBodyIsOneOpPerStageChainedOverThePeWire) {
  const auto topo = default_topology();
  const service_model t(topo, builtin_kinds(), "sip0.cube0.pe0");
  const auto p = body_problem(generate_gemm_plan(test::gemm(128, 128, 128)), t);
  std::vector<std::string> names;
  std::vector<int64_t> latency;
  for (const auto& op : p.ops) {
    names.push_back(op.name);
    latency.push_back(op.latency);
    ASSERT_EQ(op.holds.size(), 1u) << op.name; // its lane for its whole service
    EXPECT_EQ(op.holds[0].cycles, static_cast<uint32_t>(op.latency)) << op.name;
    EXPECT_TRUE(op.reservation.empty()) << op.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"k0.dma_read.A", "k0.dma_read.B", "k0.fetch",
                                             "k0.gemm", "k0.store", "k0.dma_write"}));
  EXPECT_EQ(latency, (std::vector<int64_t>{244, 244, 130, 2112, 66, 244}));
  using edge = std::tuple<uint32_t, uint32_t, int64_t, uint32_t>; // from, to, latency, distance
  std::vector<edge> edges;
  for (const auto& e : p.edges)
    edges.emplace_back(e.from, e.to, e.latency, e.distance);
  EXPECT_EQ(edges, (std::vector<edge>{
                     // token flow: back-to-back on the read channel, then one wire
                     {0, 1, 244, 0}, {1, 2, 245, 0}, {2, 3, 131, 0}, {3, 4, 2113, 0},
                     {4, 5, 67, 0},
                     // FIFO per unit: the next body's visit after this one ends
                     {1, 0, 244, 1}, {2, 2, 130, 1}, {3, 3, 2112, 1}, {4, 4, 66, 1},
                     {5, 5, 244, 1},
                     // credits, depth 4: the sender's next take (one body on) waits a
                     // wire after the receiver took the token four bodies back
                     {2, 0, 1, 5}, {3, 2, 1, 5}, {4, 3, 1, 5}, {5, 4, 1, 5}}));
}

TEST(TileSchedule, PredictedIiEqualsTheSimulatedIntervalOfAGemmBoundCommand) {
  // 512×128×512: 16 output tiles of one K tile each; GEMM (2112 ns) bounds.
  const auto r = test::run_pe0({test::gemm(512, 128, 512)});
  ASSERT_EQ(r.error, "");
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  EXPECT_EQ(test::figure(r, s, "cmd1.body_tiles"), 1u);
  EXPECT_EQ(test::figure(r, s, "cmd1.predicted_ii_ps"), 2112000u);
  EXPECT_EQ(test::figure(r, s, "cmd1.steady_interval_ps"), 2112000u);
}

TEST(TileSchedule, AKTiledBodyHoldsAllKTilesOfAnOutputTile) {
  // 512³: each output tile takes 4 K tiles; the body's GEMM work is 4 × 2112.
  const auto r = test::run_pe0({test::gemm(512, 512, 512)});
  ASSERT_EQ(r.error, "");
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  EXPECT_EQ(test::figure(r, s, "cmd1.body_tiles"), 4u);
  EXPECT_EQ(test::figure(r, s, "cmd1.predicted_ii_ps"), 8448000u);
  EXPECT_EQ(test::figure(r, s, "cmd1.steady_interval_ps"), 8448000u);
}

TEST(TileSchedule, ModuloFeedReleasesOneBodyPerIi) {
  // The command reaches the scheduler 1 ns after the issue (at the launch,
  // test::launch_ns); body j leaves 2112·j later and its DMA read of A starts
  // one wire after that. The run ends as the FIFO
  // feed does (the pipeline is GEMM-bound either way), without feeder stall.
  const auto path = topology_with_scheduler(
    "pe_scheduler: {impl: pe_scheduler_v1, feed_policy: modulo}", "modulo_feed.yaml");
  const auto r = test::run_pe0_on(path, {test::gemm(512, 128, 512)});
  ASSERT_EQ(r.error, "");
  const auto reads = test::stages_of(r, stage_type::dma_read);
  ASSERT_EQ(reads.size(), 32u);
  for (size_t j = 0; j < 16; ++j)
    EXPECT_EQ(reads[2 * j].start.ps(), (test::launch_ns + 2 + 2112 * j) * 1000) << "tile " << j;
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  EXPECT_EQ(test::figure(r, s, "feeder.stall_ps"), 0u);
  const auto fifo = test::run_pe0({test::gemm(512, 128, 512)});
  EXPECT_EQ(test::figure(r, "sip0.cube0.pe0.pe_cpu", "cmd1.done_ps"),
            test::figure(fifo, "sip0.cube0.pe0.pe_cpu", "cmd1.done_ps"));
  EXPECT_GT(test::figure(fifo, s, "feeder.stall_ps"), 0u);
}

TEST(TileSchedule, EveryGemmGetsAPredictionWhateverItsSize) {
  // Issue 9: bodies the old cycle-row table could not schedule in minutes.
  // All GEMM-bound, so II = K tiles × 2112 ns (128³ tiles, 4·4·128 + 64).
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  auto f32 = test::gemm(1024, 1024, 1024);
  f32.in_dtype = dtype::f32;
  const auto a = test::run_pe0({f32});
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(test::figure(a, s, "cmd1.body_tiles"), 8u);
  EXPECT_EQ(test::figure(a, s, "cmd1.predicted_ii_ps"), 16896000u);
  EXPECT_EQ(test::figure(a, s, "cmd1.steady_interval_ps"), 16896000u);

  const auto b = test::run_pe0({test::gemm(2048, 2048, 2048)});
  ASSERT_EQ(b.error, "");
  EXPECT_EQ(test::figure(b, s, "cmd1.body_tiles"), 16u);
  EXPECT_EQ(test::figure(b, s, "cmd1.predicted_ii_ps"), 33792000u);
  EXPECT_EQ(test::figure(b, s, "cmd1.steady_interval_ps"), 33792000u);

  // One output tile over K = 65536: one body of 512 K tiles (2050 ops), so
  // no simulated interval to compare; II = MII = 512 × 2112 ns.
  const auto c = test::run_pe0({test::gemm(128, 65536, 128)});
  ASSERT_EQ(c.error, "");
  EXPECT_EQ(test::figure(c, s, "cmd1.body_tiles"), 512u);
  EXPECT_EQ(test::figure(c, s, "cmd1.predicted_ii_ps"), 1081344000u);
  EXPECT_EQ(test::figure(c, s, "cmd1.predicted_mii_ps"), 1081344000u);
}

TEST(TileSchedule, PredictedIiEqualsTheSimulatedIntervalWhereTheModelIsExact) {
  // Shapes whose every service is a whole number of cycles and whose DMA
  // meets no HBM contention the unloaded model leaves out. A DMA read of B
  // bytes takes 116 + B/256 ns (setup 8, request 4, HBM 100 + B/512 hidden
  // under the 256 GB/s link back); a GEMM tile ⌈tm/32⌉·⌈tn/32⌉·tk + 64.
  struct shape {
    uint32_t m, k, n, tm, tk, tn;
    dtype type;
    uint64_t ii_ns;
  };
  const shape shapes[] = {
    {512, 512, 512, 128, 128, 128, dtype::f16, 4 * 2112},       // GEMM-bound
    {1024, 1024, 1024, 64, 64, 64, dtype::f16, 16 * 320},       // GEMM-bound
    {1024, 256, 1024, 128, 64, 128, dtype::f16, 4 * 1088},      // GEMM-bound
    {512, 512, 512, 32, 32, 32, dtype::f16, 16 * 2 * (116 + 8)}, // read-bound, 2 KiB
    {512, 512, 512, 32, 32, 32, dtype::i8, 16 * 2 * (116 + 4)},  // read-bound, 1 KiB
  };
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  for (const auto& sh : shapes) {
    auto g = test::gemm(sh.m, sh.k, sh.n);
    g.tile_m = sh.tm;
    g.tile_k = sh.tk;
    g.tile_n = sh.tn;
    g.in_dtype = sh.type;
    const auto r = test::run_pe0({g});
    ASSERT_EQ(r.error, "");
    const std::string what = fmt::format("{}x{}x{} tile {}x{}x{} {}", sh.m, sh.k, sh.n, sh.tm,
                                         sh.tk, sh.tn, to_string(sh.type));
    EXPECT_EQ(test::figure(r, s, "cmd1.predicted_ii_ps"), sh.ii_ns * 1000) << what;
    EXPECT_EQ(test::figure(r, s, "cmd1.steady_interval_ps"), sh.ii_ns * 1000) << what;
  }
}

TEST(TileSchedule, TheModuloFeedRunsABodyOfAnySize) {
  // 128×8192×128: one body of 64 K tiles (258 ops), beyond the old limit of
  // 96 ops; the modulo feed now has its II and releases the body at once.
  const auto path = topology_with_scheduler(
    "pe_scheduler: {impl: pe_scheduler_v1, feed_policy: modulo}", "modulo_feed_deep.yaml");
  const auto m = test::run_pe0_on(path, {test::gemm(128, 8192, 128)});
  ASSERT_EQ(m.error, "");
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  EXPECT_EQ(test::figure(m, s, "cmd1.body_tiles"), 64u);
  EXPECT_EQ(test::figure(m, s, "cmd1.predicted_ii_ps"), 64u * 2112000u);
  const auto fifo = test::run_pe0({test::gemm(128, 8192, 128)});
  EXPECT_EQ(test::figure(m, "sip0.cube0.pe0.pe_cpu", "cmd1.done_ps"),
            test::figure(fifo, "sip0.cube0.pe0.pe_cpu", "cmd1.done_ps"));
}

TEST(TileSchedule, AnUnknownFeedPolicyNamesTheKey) {
  const auto path = topology_with_scheduler(
    "pe_scheduler: {impl: pe_scheduler_v1, feed_policy: modular}", "bad_feed.yaml");
  try {
    (void)test::run_pe0_on(path, {test::gemm(128, 128, 128)});
    FAIL() << "expected a config error";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key_path(), "cube.pe_template.components.pe_scheduler.feed_policy");
    EXPECT_EQ(e.message(), "unknown feed_policy 'modular' (known: fifo, modulo)");
    EXPECT_EQ(e.where().line, 57u);
  }
}

} // namespace
} // namespace kb
