// The II prediction's DMA stages follow the machine's fabric routes
// (ADR-0012, ADR-0015): an operand in a neighbouring cube, another SIP, the
// shared SRAM or another PE's TCM has an unloaded service time, the same as
// the simulation's for a lone request (tests/actors/fabric_test.cpp derives
// those by hand on the same parameters as config/scale/2sip_2cube_4pe.yaml;
// here the token arrives at 0, there at t0 = 1 ns).

#include "tests/pipeline/pipeline_support.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/address.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/predict/service_model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kb {
namespace {

using test::config_file;
using ::testing::HasSubstr;

constexpr uint64_t kib32 = 32 * 1024;

topology_spec load(const std::string& path) {
  return load_topology(path, builtin_kinds().catalog());
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// `path`'s text with `from` replaced by `to` (which must be found).
std::string patched(const std::string& path, const std::string& name,
                    std::vector<std::pair<std::string, std::string>> edits) {
  std::string yaml = text_of(path);
  for (const auto& [from, to] : edits) {
    const auto at = yaml.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
      yaml.replace(at, from.size(), to);
  }
  const std::string out = ::testing::TempDir() + name;
  std::ofstream(out) << yaml;
  return out;
}

stage dma(stage_type t, uint64_t address, uint64_t bytes = kib32) {
  stage s{t, unit_role::dma, {}};
  s.params.address = address;
  s.params.bytes = bytes;
  return s;
}

uint64_t hbm(uint32_t sip, uint32_t cube) {
  return global_address{mem_space::hbm, sip, cube, 0, 0x2000}.encode();
}

TEST(RoutePrediction, DmaReadsOfEveryMemoryTakeTheirRoutesTime) {
  const topology_spec topo = load(config_file("scale/2sip_2cube_4pe.yaml"));
  const service_model t(topo, builtin_kinds(), "sip0.cube0.pe0");
  auto read_ps = [&](uint64_t address) { return t.service(dma(stage_type::dma_read, address)).ps(); };
  // Own HBM (DESIGN §4's worked example): 244 ns.
  EXPECT_EQ(read_ps(hbm(0, 0)), 244000u);
  // Over UCIe to cube 1's HBM: 282 ns; over the inter-SIP link: 1,461.68 ns.
  EXPECT_EQ(read_ps(hbm(0, 1)), 282000u);
  EXPECT_EQ(read_ps(hbm(1, 0)), 1461680u);
  // pe1's TCM at its DMA port: 148 ns.
  EXPECT_EQ(read_ps(global_address{mem_space::tcm, 0, 0, 1, 0x400}.encode()), 148000u);
  // Shared SRAM: request 8 -> NOC 9, +4 13 -> SRAM 14: head 34, tail 14 +
  // 64 + 20 = 98; sram->noc (256 GB/s) s = 34, tail max(162, 98) -> 35/163;
  // NOC 39/167; noc->pe_dma s = 39, tail max(167, 167) -> 168.
  EXPECT_EQ(read_ps(global_address{mem_space::sram, 0, 0, 0, 0x400}.encode()), 168000u);
}

// A write to cube 1's HBM: 8 -> NOC: s = 8, tail 8 + 128 = 136 -> 9/137;
// NOC 13/141; UCIe: s = 13, tail max(141, 141) -> 23/151; NOC1 27/155;
// noc->xbar: s = 27, tail max(155, 155) -> 28/156; XBAR1 30/158; xbar->hbm
// (512): s = 30, tail max(94, 158) -> 31/159; HBM: s = 31, ack at
// max(31 + 64, 159) + 100 = 259; back with no payload: XBAR 260 +2 262,
// NOC1 263 +4 267, UCIe 277, NOC0 +4 281, pe_dma 282.
TEST(RoutePrediction, ARemoteWriteWaitsForItsAck) {
  const topology_spec topo = load(config_file("scale/2sip_2cube_4pe.yaml"));
  const service_model t(topo, builtin_kinds(), "sip0.cube0.pe0");
  EXPECT_EQ(t.service(dma(stage_type::dma_write, hbm(0, 1))).ps(), 282000u);
}

// With the MMU linked into the fabric (4 cycles of translation), a read of
// the own HBM pays the 1 ns wire to the MMU and its 4 ns: 244 + 5 = 249.
TEST(RoutePrediction, AnMmuOnThePathAddsItsWireAndTranslation) {
  const std::string path = patched(
    config_file("topology.yaml"), "mmu_topology.yaml",
    {{"pe_mmu: {impl: pe_mmu_passthrough}", "pe_mmu: {impl: pe_mmu_passthrough, translate_cycles: 4}"},
     {"    # everything else goes over the NOC",
      "    - {from: pe*.pe_mmu, to: xbar, latency_ns: 1, bandwidth_gbps: 256}\n"
      "    - {from: pe*.pe_mmu, to: noc, latency_ns: 1, bandwidth_gbps: 256}\n"
      "    # everything else goes over the NOC"}});
  const topology_spec topo = load(path);
  const service_model t(topo, builtin_kinds(), "sip0.cube0.pe0");
  EXPECT_EQ(t.service(dma(stage_type::dma_read, hbm(0, 0))).ps(), 249000u);
}

// The per-channel HBM declares its unloaded service (docs/adr/0034): that of
// a request starting on a granule boundary. 8 channels of 64 GB/s, 8 KiB
// granules; a 24 KiB read at 8 KiB (a granule boundary) is 8 KiB on each of
// channels 1-3: xfer 128 ns. Request 8 -> XBAR 9, +2 11 -> HBM 12: head 112,
// tail 12 + 128 + 100 = 240; hbm->xbar (512) s = 112, tail max(160, 240) ->
// 113/241; XBAR 115/243; xbar->pe_dma (256) s = 115, tail max(211, 243) ->
// 244. (The aggregated HBM: tail 12 + 48 + 100 = 160, so 212.)
TEST(RoutePrediction, APerChannelHbmDeclaresTheServiceOfItsBusiestChannel) {
  const std::string path = patched(
    config_file("topology.yaml"), "channels_topology.yaml",
    {{"hbm: {kind: hbm_ctrl, impl: hbm_ctrl_v1, bandwidth_gbps: 512, latency_ns: 100}",
      "hbm: {kind: hbm_ctrl, impl: hbm_ctrl_channels_v1, bandwidth_gbps: 512, latency_ns: 100, "
      "channels: 8, interleave_bytes: 8192}"}});
  const topology_spec topo = load(path);
  const service_model t(topo, builtin_kinds(), "sip0.cube0.pe0");
  EXPECT_EQ(t.service(dma(stage_type::dma_read, hbm(0, 0), 24 * 1024)).ps(), 244000u);
  const topology_spec aggregated = load(config_file("topology.yaml"));
  const service_model agg(aggregated, builtin_kinds(), "sip0.cube0.pe0");
  EXPECT_EQ(agg.service(dma(stage_type::dma_read, hbm(0, 0), 24 * 1024)).ps(), 212000u);
}

} // namespace
} // namespace kb
