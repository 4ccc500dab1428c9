// The II prediction (issue 4, item 6): unloaded stage times from the timing
// model, the steady-state body as a scheduling problem, its modulo II set
// beside the simulated interval, and the `modulo` feed policy.

#include "tests/pipeline/pipeline_support.hpp"

#include "actors/builtin_kinds.hpp"
#include "actors/stage_timing.hpp"
#include "actors/tile_schedule.hpp"
#include "runtime/config/config_error.hpp"
#include "runtime/config/impl_registry.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/plan/gemm_plan.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kb {
namespace {

using test::config_file;

topology_spec default_topology() {
  return load_topology(config_file("topology.yaml"), load_impl_registry(config_file("components.yaml")),
                       builtin_kinds().catalog());
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
  const stage_timing t(topo, "sip0.cube0.pe0");
  const auto plan = generate_gemm_plan(test::gemm(128, 128, 128));
  ASSERT_EQ(plan.tiles.size(), 1u);
  std::vector<uint64_t> ns;
  for (const auto& s : plan.tiles[0].stages)
    ns.push_back(t.service(s).ps() / 1000);
  EXPECT_EQ(ns, (std::vector<uint64_t>{244, 244, 130, 2112, 66, 244}));
}

TEST(TileSchedule, TheBodyIsOneOpPerStageChainedOverThePeWire) {
  const auto topo = default_topology();
  const stage_timing t(topo, "sip0.cube0.pe0");
  const auto p = body_problem(generate_gemm_plan(test::gemm(128, 128, 128)), t);
  std::vector<std::string> names;
  std::vector<int64_t> latency, edge_latency;
  for (const auto& op : p.ops) {
    names.push_back(op.name);
    latency.push_back(op.latency);
    EXPECT_EQ(op.reservation.size(), static_cast<size_t>(op.latency)) << op.name;
  }
  for (const auto& e : p.edges)
    edge_latency.push_back(e.latency);
  EXPECT_EQ(names, (std::vector<std::string>{"k0.dma_read.A", "k0.dma_read.B", "k0.fetch",
                                             "k0.gemm", "k0.store", "k0.dma_write"}));
  EXPECT_EQ(latency, (std::vector<int64_t>{244, 244, 130, 2112, 66, 244}));
  // Back-to-back on the read channel, then one wire cycle between units.
  EXPECT_EQ(edge_latency, (std::vector<int64_t>{244, 245, 131, 2113, 67}));
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
  // The command reaches the scheduler at 1 ns; body j leaves at 1 + 2112·j
  // and its DMA read of A starts one wire later. The run ends as the FIFO
  // feed does (the pipeline is GEMM-bound either way), without feeder stall.
  const auto path = topology_with_scheduler(
    "pe_scheduler: {impl: pe_scheduler_v1, feed_policy: modulo}", "modulo_feed.yaml");
  const auto r = test::run_pe0_on(path, {test::gemm(512, 128, 512)});
  ASSERT_EQ(r.error, "");
  const auto reads = test::stages_of(r, stage_type::dma_read);
  ASSERT_EQ(reads.size(), 32u);
  for (size_t j = 0; j < 16; ++j)
    EXPECT_EQ(reads[2 * j].start.ps(), (2 + 2112 * j) * 1000) << "tile " << j;
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  EXPECT_EQ(test::figure(r, s, "feeder.stall_ps"), 0u);
  const auto fifo = test::run_pe0({test::gemm(512, 128, 512)});
  EXPECT_EQ(test::figure(r, "sip0.cube0.pe0.pe_cpu", "cmd1.done_ps"),
            test::figure(fifo, "sip0.cube0.pe0.pe_cpu", "cmd1.done_ps"));
  EXPECT_GT(test::figure(fifo, s, "feeder.stall_ps"), 0u);
}

TEST(TileSchedule, ABodyBeyondThePredictionLimitIsReportedNotModelled) {
  // One output tile over K = 8192: a body of 64 K tiles, 4 stages each plus
  // store and write on the last (258 ops, 64·(244+244+130+2112)+66+244 =
  // 175030 cycles), exceeds
  // max_body_ops, so no II is predicted, and the modulo feed refuses it.
  const auto r = test::run_pe0({test::gemm(128, 8192, 128)});
  ASSERT_EQ(r.error, "");
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  EXPECT_EQ(test::figure(r, s, "cmd1.body_tiles"), 64u);
  EXPECT_EQ(test::figure(r, s, "cmd1.predicted_ii_ps"), 0u);
  const auto path = topology_with_scheduler(
    "pe_scheduler: {impl: pe_scheduler_v1, feed_policy: modulo}", "modulo_feed_deep.yaml");
  const auto m = test::run_pe0_on(path, {test::gemm(128, 8192, 128)});
  EXPECT_EQ(m.error, "sip0.cube0.pe0.pe_scheduler at t=1000 ps: command 1: feed_policy modulo "
                     "needs the II prediction, which this command has not: the steady-state "
                     "body (258 ops, 175030 cycles of service) exceeds the prediction's limit "
                     "(96 ops, 100000 cycles)");
}

TEST(TileSchedule, AnUnknownFeedPolicyNamesTheKey) {
  const auto path = topology_with_scheduler(
    "pe_scheduler: {impl: pe_scheduler_v1, feed_policy: modular}", "bad_feed.yaml");
  try {
    (void)test::run_pe0_on(path, {test::gemm(128, 128, 128)});
    FAIL() << "expected a config error";
  } catch (const config_error& e) {
    EXPECT_EQ(e.key_path(), "cube.pe_template.components.pe_scheduler.feed_policy");
    EXPECT_EQ(e.message(), "unknown feed policy 'modular' (known: fifo, modulo)");
    EXPECT_EQ(e.where().line, 57u);
  }
}

} // namespace
} // namespace kb
