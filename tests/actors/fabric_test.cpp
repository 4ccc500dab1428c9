// The memory fabric beyond the own cube (DESIGN §4 Fabric): remote HBM over
// UCIe and the inter-SIP link, another PE's TCM, contention of two cubes for
// one HBM, and the routes themselves. Every time is derived by hand below.
//
// Defaults: DMA setup 8 ns; XBAR +2 ns, NOC +4 ns to head and tail; HBM
// 512 GB/s, 100 ns; TCM DMA port 512 GB/s, 0 ns; links in a cube 1 ns
// (PE_DMA <-> XBAR, NOC <-> XBAR, NOC <-> TCM, PE_DMA <-> NOC: 256 GB/s;
// XBAR <-> HBM 512 GB/s); UCIe 10 ns, 256 GB/s; inter-SIP 500 ns, 100 GB/s.
// xfer(32 KiB): 64 ns at 512 GB/s, 128 ns at 256, 327.68 ns at 100. The
// feeder's token reaches the DMA at t0 = 1 ns; the request leaves at 9.

#include "actors/hbm_ctrl_channels.hpp"
#include "runtime/address.hpp"
#include "runtime/machine/fabric_map.hpp"
#include "tests/actors/harness.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb {
namespace {

using namespace kb::test;
using ::testing::HasSubstr;


// sip0.cube0 with `pes` PEs (tiles for its pe0), and a memory-only `other`
// cube (or, with `other_pes`, one PE reading its own HBM) joined by a link.
run_result run_two_cubes(const std::string& other, SimTime latency, Bandwidth bw,
                         uint64_t address, uint32_t other_pes = 0) {
  test_machine sim;
  make_cube(sim, {.pes = 1, .tiles = {{tile(0, {dma_stage(stage_type::dma_read, address, kib32)})}}});
  std::vector<std::vector<tile_plan>> other_tiles;
  if (other_pes)
    other_tiles.push_back(
      {tile(0, {dma_stage(stage_type::dma_read, address, kib32)})});
  make_cube(sim, {.pes = other_pes, .tiles = other_tiles, .cube = other});
  join_nocs(sim, "sip0.cube0", other, latency, bw);
  return run(sim);
}

// Request: 9 -> NOC0 10, +4 14 -> UCIe 24 -> NOC1 +4 28 -> XBAR1 29, +2 31
// -> HBM1 32: s = 32, data head 132, tail 196. hbm->xbar (512): s = 132,
// tail 196 -> 133/197; XBAR +2 -> 135/199; xbar->noc (256): s = 135, tail
// max(263, 199) = 263 -> 136/264; NOC1 +4 -> 140/268; UCIe (256): s = 140,
// tail max(268, 268) -> 150/278; NOC0 +4 -> 154/282; noc->pe_dma (256):
// s = 154, tail max(282, 282) -> tail arrives 283 = t0 + 282. Done 284.
TEST(Fabric, Read32KiBOfANeighbouringCubesHbmOverUcie) {
  const run_result r = run_two_cubes("sip0.cube1", ns(10), Bandwidth::gbps(256), hbm_of(0, 1));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 282000u);
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"), std::vector<uint64_t>{284000});
  EXPECT_EQ(figure_of(r, "sip0.cube1.hbm", "read_bytes"), kib32);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "requests"), 0u);
  EXPECT_EQ(figure_of(r, "sip0.cube1.noc", "requests"), 1u);
  EXPECT_EQ(figure_of(r, "sip0.cube1.xbar", "replies"), 1u);
}

// As above with the 500 ns, 100 GB/s link: HBM at 9+1+4+500+4+1+2+1 = 522:
// head 622, tail 686 -> XBAR 625/689 -> xbar->noc s = 625, tail max(753,
// 689) = 753 -> 626/754 -> NOC +4 630/758 -> inter-SIP: s = 630, tail
// max(630 + 327.68, 758) = 957.68 -> 1130/1457.68 -> NOC0 +4 1134/1461.68
// -> noc->pe_dma: s = 1134, tail max(1262, 1461.68) -> 1462.68 = t0 +
// 1461.68. Done 1463.68.
TEST(Fabric, Read32KiBOfAnotherSipsHbmOverTheInterSipLink) {
  const run_result r = run_two_cubes("sip1.cube0", ns(500), Bandwidth::gbps(100), hbm_of(1, 0));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 1461680u);
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"), std::vector<uint64_t>{1463680});
  EXPECT_EQ(figure_of(r, "sip1.cube0.hbm", "read_bytes"), kib32);
}

// pe0 reads 32 KiB of pe1's TCM: 9 -> NOC 10, +4 14 -> TCM 15: s = 15,
// head 15, tail 79 (0 ns access). tcm->noc (256): s = 15, tail max(143, 79)
// = 143 -> 16/144; NOC +4 20/148; noc->pe_dma: s = 20, tail 148 -> 21/149 =
// t0 + 148. Done 150. The fetch/store port of pe1's TCM is untouched.
TEST(Fabric, Read32KiBOfAnotherPesTcm) {
  const uint64_t tcm = global_address{mem_space::tcm, 0, 0, 1, 0x400}.encode();
  test_machine sim;
  make_cube(sim, {.pes = 2, .tiles = {{tile(0, {dma_stage(stage_type::dma_read, tcm, kib32)})}}});
  const run_result r = run(sim);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 148000u);
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"), std::vector<uint64_t>{150000});
  EXPECT_EQ(figure_of(r, unit(1, "pe_tcm"), "dma_read_bytes"), kib32);
  EXPECT_EQ(figure_of(r, unit(1, "pe_tcm"), "dma_busy_ps"), 64000u);
  EXPECT_EQ(figure_of(r, unit(1, "pe_tcm"), "bytes"), 0u);
}

// sip0.cube0.pe0 and sip0.cube1.pe0 both read 32 KiB of cube1's HBM. The
// local request arrives at 9+1+2+1 = 13: s = 13, head 113, tail 177. The
// remote one arrives at 32 (above): s = max(32, free 77) = 77, head 177,
// tail 241. hbm->xbar: local s = 113, tail 177 -> 114/178; remote s =
// max(177, F 177), tail 241 -> 178/242. Local: XBAR 116/180 -> pe_dma s =
// 116, tail max(244, 180) -> 245 = t0 + 244, done 246. Remote: XBAR 180/244
// -> noc s = 180, tail max(308, 244) -> 181/309; NOC1 185/313; UCIe s = 185,
// tail max(313, 313) -> 195/323; NOC0 199/327; pe_dma s = 199, tail
// max(327, 327) -> 328 = t0 + 327, done 329.
TEST(Fabric, TwoPesOfDifferentCubesContendForOneHbm) {
  const run_result r =
    run_two_cubes("sip0.cube1", ns(10), Bandwidth::gbps(256), hbm_of(0, 1), 1);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma", "sip0.cube1"), "read.busy_ps"), 244000u);
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 327000u);
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"), std::vector<uint64_t>{329000});
  EXPECT_EQ(figure_of(r, "sip0.cube1.hbm", "busy_ps"), 128000u);
  EXPECT_EQ(figure_of(r, "sip0.cube1.hbm", "requests"), 2u);
}

TEST(Fabric, AMachineWithoutTheUcieLinkIsABuildError) {
  test_machine sim;
  make_cube(sim, {.pes = 1});
  make_cube(sim, {.pes = 0, .cube = "sip0.cube1"});
  try {
    run(sim);
    FAIL() << "expected a build error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no route from sip0.cube0.pe0.pe_dma to sip0.cube1.hbm"));
  }
}

// Per-channel HBM: 4 channels of 128 GB/s (512 / 4), 32 KiB granules, so a
// 32 KiB read at offset 0 is on channel 0, at 32 KiB on channel 1, at
// 128 KiB on channel 0 again; xfer(32 KiB, 128 GB/s) = 256 ns. Both
// requests reach the HBM at 13 (pe0 first in key order).
// Different channels: both s = 13, head 113, tail 13+256+100 = 369.
//   hbm->xbar (512): pe0 s = 113, tail max(177, 369) -> 114/370; pe1
//   s = max(113, F 369), tail max(433, 369) = 433 -> 370/434. XBAR +2:
//   pe0 116/372, pe1 372/436. xbar->pe_dma (256): pe0 s = 116, tail
//   max(244, 372) -> 373 = t0 + 372; pe1 s = 372, tail max(500, 436) ->
//   501 = t0 + 500.
// Same channel: pe1 s = 269 (channel 0 free), head 369, tail 625;
//   hbm->xbar s = 369, tail max(433, 625) -> 370/626; XBAR 372/628;
//   pe_dma s = 372, tail max(500, 628) -> 629 = t0 + 628.
run_result run_channels(uint64_t pe1_offset) {
  test_machine sim;
  make_cube(sim, {.pes = 2,
                  .tiles = {{tile(0, {dma_stage(stage_type::dma_read, 0, kib32)})},
                            {tile(0, {dma_stage(stage_type::dma_read, pe1_offset, kib32)})}},
                  .hbm_channels = 4,
                  .hbm_granule = kib32});
  return run(sim);
}

TEST(HbmChannels, TwoReadsOnDifferentChannelsAreServedTogether) {
  const run_result r = run_channels(kib32);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 372000u);
  EXPECT_EQ(figure_of(r, unit(1, "pe_dma"), "read.busy_ps"), 500000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "ch0.busy_ps"), 256000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "ch1.busy_ps"), 256000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "busy_ps"), 128000u); // mean of 4 channels
}

TEST(HbmChannels, TwoReadsOnOneChannelQueue) {
  const run_result r = run_channels(4 * kib32);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 372000u);
  EXPECT_EQ(figure_of(r, unit(1, "pe_dma"), "read.busy_ps"), 628000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "ch0.busy_ps"), 512000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "ch1.busy_ps"), 0u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "requests"), 2u);
}

// Granule 256, 4 channels: a round of all channels is 1 KiB.
TEST(HbmChannels, BytesOfARequestPerChannel) {
  // [100, 1300): ch0 gets [100, 256) and [1024, 1280) = 156 + 256; ch1 gets
  // [256, 512) and [1280, 1300) = 256 + 20; ch2 [512, 768); ch3 [768, 1024).
  EXPECT_EQ(hbm_ctrl_channels::bytes_on(100, 1200, 0, 4, 256), 412u);
  EXPECT_EQ(hbm_ctrl_channels::bytes_on(100, 1200, 1, 4, 256), 276u);
  EXPECT_EQ(hbm_ctrl_channels::bytes_on(100, 1200, 2, 4, 256), 256u);
  EXPECT_EQ(hbm_ctrl_channels::bytes_on(100, 1200, 3, 4, 256), 256u);
  EXPECT_EQ(hbm_ctrl_channels::bytes_on(uint64_t{5} << 30, 1 << 20, 3, 8, 4096), 131072u);
}

// Routes: shortest by link latency, ties to the lowest next-hop id; a node
// keeps one row per run of destinations behind the same next hop.
// Nodes (ids in name order): a2x2 mesh of forwarders n0..n3 (n0-n1, n0-n2,
// n1-n3, n2-n3, 10 each), a requester r0 on n0 and memories on n3.
TEST(FabricMap, TiesGoToTheLowestNextHopAndRowsAreRanges) {
  std::vector<fabric_node> nodes = {
    {"sip0.cube0.n", {fabric_role::forwarder}},   // 0
    {"sip0.cube1.n", {fabric_role::forwarder}},   // 1
    {"sip0.cube2.n", {fabric_role::forwarder}},   // 2
    {"sip0.cube3.hbm", {fabric_role::memory, mem_space::hbm}},   // 3
    {"sip0.cube3.n", {fabric_role::forwarder}},   // 4
    {"sip0.cube3.sram", {fabric_role::memory, mem_space::sram}}, // 5
    {"sip0.cube0.r", {fabric_role::requester}},   // 6
  };
  std::vector<fabric_link> links;
  auto pair = [&](node_id a, node_id b, uint64_t l) {
    links.push_back({a, b, l});
    links.push_back({b, a, l});
  };
  pair(0, 1, 10);
  pair(0, 2, 10);
  pair(1, 4, 10);
  pair(2, 4, 10);
  pair(4, 3, 1);
  pair(4, 5, 1);
  pair(6, 0, 1);
  const fabric_map f = fabric_map::build(nodes, links);
  EXPECT_EQ(f.next_hop(6, 3), node_id{0});
  EXPECT_EQ(f.next_hop(0, 3), node_id{1}); // via cube1 or cube2: cube1's id is lower
  EXPECT_EQ(f.next_hop(4, 6), node_id{1}); // the reply: the same tie rule
  EXPECT_EQ(f.route_latency_ps(6, 5), 22u);
  EXPECT_EQ(f.memory_of(global_address{mem_space::sram, 0, 3, 0, 77}.encode()), node_id{5});
  EXPECT_EQ(f.memory_of(global_address{mem_space::hbm, 0, 2, 0, 0}.encode()), std::nullopt);
  EXPECT_EQ(f.next_hop(6, 4), std::nullopt); // a forwarder is no destination
  EXPECT_EQ(f.rows(0), 2u); // {3, 5} -> n1 and {6} -> r0
}

} // namespace
} // namespace kb
