// PE_MMU on the DMA path (ADR-0015): linked into the fabric, every request
// of its PE_DMA passes through it and pays the wire to it plus its
// translation time; replies come straight back. A translating MMU (a kind
// deriving from pe_mmu) sends the request where the translated address
// lives. Every time is derived by hand below, from the local read of
// tests/actors/fabric_test.cpp.
//
// Defaults: DMA setup 8 ns; XBAR +2 ns, NOC +4 ns; HBM 512 GB/s, 100 ns;
// links 1 ns (pe_dma <-> pe_mmu pure wires; pe_mmu -> xbar / noc,
// pe_dma <-> xbar / noc 256 GB/s; xbar <-> hbm 512 GB/s); UCIe 10 ns,
// 256 GB/s. xfer(32 KiB) = 64 ns at 512 GB/s, 128 ns at 256 GB/s. The
// feeder's token reaches the DMA at t0 = 1 ns; the request leaves at 9.

#include "actors/pe_mmu.hpp"
#include "runtime/address.hpp"
#include "runtime/machine/fabric_map.hpp"
#include "tests/actors/harness.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb {
namespace {

using namespace kb::test;
using ::testing::HasSubstr;


run_result read_own_hbm(std::optional<uint64_t> mmu_cycles) {
  test_machine sim;
  make_cube(sim, {.pes = 1,
                  .tiles = {{tile(0, {dma_stage(stage_type::dma_read, hbm_of(0, 0), kib32)})}},
                  .mmu_cycles = mmu_cycles});
  return run(sim);
}

// Without an MMU (fabric_test.cpp): request 9 -> XBAR 10, +2 12 -> HBM 13:
// head 113, tail 177; back over hbm->xbar 114/178, XBAR 116/180, xbar->dma
// s = 116, tail max(244, 180) -> 245 = t0 + 244; done 246.
// Through an MMU of 5 cycles (5 ns): 9 -> MMU 10, +5 15 -> mmu->xbar 16
// (replacing dma->xbar's 1 ns), XBAR 18 -> HBM 19: 6 ns later than above,
// and the idle return path keeps the shift: tail at the DMA 251 = t0 + 250,
// done 252.
TEST(PeMmu, ARequestPaysTheWireToTheMmuAndItsTranslationTime) {
  const run_result direct = read_own_hbm(std::nullopt);
  ASSERT_EQ(direct.error, "");
  EXPECT_EQ(figure_of(direct, unit(0, "pe_dma"), "read.busy_ps"), 244000u);

  const run_result r = read_own_hbm(5);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 250000u);
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"), std::vector<uint64_t>{252000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_mmu"), "requests"), 1u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "read_bytes"), kib32);
}

// The pass-through with its default 0 cycles costs only the 1 ns wire:
// busy 245, done 247.
TEST(PeMmu, ThePassThroughCostsOnlyTheWireToIt) {
  const run_result r = read_own_hbm(0);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 245000u);
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"), std::vector<uint64_t>{247000});
}

// A DMA write goes through the MMU too; its ack comes straight back. Write
// of 32 KiB: 9 -> MMU 10 -> mmu->xbar: s = 10, tail 10 + 128 = 138 ->
// 11/139; XBAR 13/141; xbar->hbm (512): s = 13, tail max(77, 141) -> 14/142;
// HBM: s = 14, ack at max(14 + 64, 142) + 100 = 242; hbm->xbar 243, XBAR
// 245, xbar->dma 246 = t0 + 245; done 247. (Without the MMU, 1 ns sooner:
// 245 -> 244.)
TEST(PeMmu, AWriteGoesThroughAndItsAckComesStraightBack) {
  test_machine sim;
  make_cube(sim, {.pes = 1,
                  .tiles = {{tile(0, {dma_stage(stage_type::dma_write, hbm_of(0, 0), kib32)})}},
                  .mmu_cycles = 0});
  const run_result r = run(sim);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "write.busy_ps"), 245000u);
  EXPECT_EQ(figure_of(r, unit(0, "pe_mmu"), "requests"), 1u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "write_bytes"), kib32);
}

/// A translating MMU: cube 0's HBM is mapped onto cube 1's (same offset).
class remap_mmu final : public pe_mmu {
public:
  using pe_mmu::pe_mmu;

protected:
  uint64_t translate(uint64_t address) override {
    global_address a = global_address::decode(address);
    if (a.space != mem_space::hbm || a.cube != 0)
      throw std::runtime_error("no translation for " + std::to_string(address));
    a.cube = 1;
    return a.encode();
  }
};

// The DMA reads cube 0's HBM; the MMU sends the request to cube 1's. From
// fabric_test.cpp's remote read (request leaves the DMA at 9, NOC0 10, ...,
// tail back at t0 + 282): here the request takes the 1 ns wire to the MMU
// first (0 cycles), then mmu->noc 1 ns as dma->noc did: everything 1 ns
// later, busy 283, done 285; cube 0's HBM sees nothing.
TEST(PeMmu, ATranslatingMmuSendsTheRequestWhereTheTranslatedAddressLives) {
  test_machine sim;
  const auto fab = sim.fabric();
  make_cube(sim, {.pes = 1,
                  .tiles = {{tile(0, {dma_stage(stage_type::dma_read, hbm_of(0, 0), kib32)})}},
                  .mmu_cycles = 0,
                  .mmu = make_node_factory<remap_mmu>(pe_mmu::config{.fabric = fab})});
  make_cube(sim, {.pes = 0, .cube = "sip0.cube1"});
  join_nocs(sim, "sip0.cube0", "sip0.cube1", ns(10), Bandwidth::gbps(256));
  const run_result r = run(sim);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 283000u);
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"), std::vector<uint64_t>{285000});
  EXPECT_EQ(figure_of(r, "sip0.cube1.hbm", "read_bytes"), kib32);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "requests"), 0u);
}

TEST(PeMmu, AnAddressNoMemoryOwnsIsAnErrorNamingTheMmu) {
  test_machine sim;
  const uint64_t nowhere = hbm_of(0, 7);
  make_cube(sim, {.pes = 1,
                  .tiles = {{tile(0, {dma_stage(stage_type::dma_read, nowhere, kib32)})}},
                  .mmu_cycles = 0});
  const run_result r = run(sim);
  EXPECT_THAT(r.error, HasSubstr("sip0.cube0.pe0.pe_mmu at t=10000 ps: "));
  EXPECT_THAT(r.error, HasSubstr("sip0.cube7"));
}

// -- routes ------------------------------------------------------------------

struct mini {
  std::vector<fabric_node> nodes;
  std::vector<fabric_link> links;
  node_id add(std::string name, fabric_kind k) {
    nodes.push_back({std::move(name), k});
    return static_cast<node_id>(nodes.size() - 1);
  }
  void link(node_id a, node_id b) { links.push_back({a, b, 1000}); }
};

// dma (0) -> mmu (1) -> xbar (2) <-> hbm (3); xbar -> dma for replies.
mini dma_mmu_xbar_hbm() {
  mini m;
  const node_id dma = m.add("sip0.cube0.pe0.pe_dma", {fabric_role::requester});
  const node_id mmu = m.add("sip0.cube0.pe0.pe_mmu", {fabric_role::translator});
  const node_id xbar = m.add("sip0.cube0.xbar", {fabric_role::forwarder});
  const node_id hbm = m.add("sip0.cube0.hbm", {fabric_role::memory, mem_space::hbm});
  m.link(dma, mmu);
  m.link(mmu, dma);
  m.link(mmu, xbar);
  m.link(xbar, hbm);
  m.link(hbm, xbar);
  m.link(xbar, dma);
  return m;
}

TEST(PeMmuRoutes, ARequesterLinkedToARoutedTranslatorGoesThroughIt) {
  mini m = dma_mmu_xbar_hbm();
  const fabric_map f = fabric_map::build(m.nodes, m.links);
  EXPECT_EQ(f.via(0), std::optional<node_id>{1});
  EXPECT_EQ(f.next_hop(1, 3), std::optional<node_id>{2});
  EXPECT_EQ(f.next_hop(3, 0), std::optional<node_id>{2}); // the reply: not via the MMU
  EXPECT_EQ(f.via(2), std::nullopt);
}

TEST(PeMmuRoutes, AnUnlinkedTranslatorIsNotOnThePath) {
  mini m = dma_mmu_xbar_hbm();
  m.links.erase(m.links.begin() + 2); // mmu -> xbar
  m.link(0, 2);                       // dma -> xbar
  const fabric_map f = fabric_map::build(m.nodes, m.links);
  EXPECT_EQ(f.via(0), std::nullopt);
  EXPECT_EQ(f.next_hop(0, 3), std::optional<node_id>{2});
}

TEST(PeMmuRoutes, ATranslatorThatReachesNoHbmIsABuildErrorNamingIt) {
  mini m = dma_mmu_xbar_hbm();
  const node_id sram = m.add("sip0.cube0.sram", {fabric_role::memory, mem_space::sram});
  const node_id noc = m.add("sip0.cube0.noc", {fabric_role::forwarder});
  m.link(noc, sram);
  m.link(sram, noc);
  m.link(noc, 0);
  m.link(0, noc); // the DMA reaches the SRAM, but its requests go through the MMU
  try {
    fabric_map::build(m.nodes, m.links);
    FAIL() << "expected a build error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no route from sip0.cube0.pe0.pe_mmu to sip0.cube0.sram"));
  }
}

TEST(PeMmuRoutes, TwoRoutedTranslatorsAreAmbiguous) {
  mini m = dma_mmu_xbar_hbm();
  const node_id mmu2 = m.add("sip0.cube0.pe0.pe_mmu2", {fabric_role::translator});
  m.link(0, mmu2);
  m.link(mmu2, 2);
  try {
    fabric_map::build(m.nodes, m.links);
    FAIL() << "expected a build error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("sip0.cube0.pe0.pe_dma links to two translators with "
                                    "routes, sip0.cube0.pe0.pe_mmu and sip0.cube0.pe0.pe_mmu2"));
  }
}

} // namespace
} // namespace kb
