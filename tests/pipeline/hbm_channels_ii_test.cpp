// The II prediction on a machine whose HBM is per-channel
// (hbm_ctrl_channels_v1, docs/adr/0034-per-channel-hbm.md): the kind
// declares its service, so the command gets a predicted II, and on a
// read-bound steady state it equals the simulated interval.

#include "tests/pipeline/pipeline_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kb {
namespace {

using test::config_file;

/// The default topology with its HBM made per-channel: `channels` channels
/// of 512 / channels GB/s, 100 ns, interleaved every `granule` bytes.
std::string channels_topology(uint32_t channels, uint64_t granule, const std::string& name) {
  std::ifstream in(config_file("topology.yaml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string from =
    "hbm: {kind: hbm_ctrl, impl: hbm_ctrl_v1, bandwidth_gbps: 512, latency_ns: 100}";
  const auto at = yaml.find(from);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos)
    yaml.replace(at, from.size(),
                 "hbm: {kind: hbm_ctrl, impl: hbm_ctrl_channels_v1, bandwidth_gbps: 512, "
                 "latency_ns: 100, channels: " + std::to_string(channels) +
                   ", interleave_bytes: " + std::to_string(granule) + "}");
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << yaml;
  return path;
}

// 512³ f16 in 32³ tiles: A and B tiles of 2 KiB, whose rows start every
// 64 B (A at 0, B at 16 MiB), so with 64 B granules every request starts
// on a granule boundary and the declared service is exact. 128 channels of
// 512 / 128 = 4 GB/s: a round is 8 KiB, so a 2 KiB read is 64 B on each of
// 32 channels, xfer(64 B, 4 GB/s) = 16 ns (the aggregated HBM: 4 ns). The
// HBM's tail now bounds the reply (the 256 GB/s link back takes 8 ns): a
// read takes setup 8 + request 4 + 100 + 16 + 4 back = 132 ns. The body
// (16 K tiles of one output tile) is read-bound: II = 16 · 2 · 132 =
// 4,224 ns (the default machine: 16 · 2 · 124 = 3,968 ns).
TEST(HbmChannelsIi, PredictedIiEqualsTheSimulatedIntervalOnAReadBoundBody) {
  const auto path = channels_topology(128, 64, "channels_ii.yaml");
  auto g = test::gemm(512, 512, 512, 32);
  const auto r = test::run_pe0_on(path, {g});
  ASSERT_EQ(r.error, "");
  const std::string s = "sip0.cube0.pe0.pe_scheduler";
  EXPECT_EQ(test::figure(r, s, "cmd1.predicted_ii_ps"), 16u * 2 * 132 * 1000);
  EXPECT_EQ(test::figure(r, s, "cmd1.steady_interval_ps"), 16u * 2 * 132 * 1000);
  const auto reads = test::stages_of(r, stage_type::dma_read);
  ASSERT_FALSE(reads.empty());
  EXPECT_EQ((reads[0].end - reads[0].start).ps(), 132000u);
}

} // namespace
} // namespace kb
