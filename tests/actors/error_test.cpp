// Bad input to the node kinds: every error names the node, the time and
// what is wrong.

#include "actors/m_cpu.hpp"
#include "runtime/address.hpp"
#include "tests/actors/harness.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb {
namespace {

using namespace kb::test;
using ::testing::HasSubstr;

run_result run_one_pe(std::vector<tile_plan> tiles,
                      std::vector<std::string> omit = {}) {
  test_machine sim;
  make_cube(sim, {.pes = 1, .tiles = {std::move(tiles)}, .omit = std::move(omit)});
  return run(sim);
}

// The DMA read ends at 245 ns (pe_dma_test); forwarding the token to a
// FETCH on a unit the DMA has no link to fails then.
TEST(Errors, TokenRoutedToAComponentWithoutALinkFails) {
  run_result r = run_one_pe({tile(0, {dma_stage(stage_type::dma_read, 0, 32768),
                                      tcm_stage(stage_type::fetch, 32768)})},
                            {"pe_fetch_store"});
  EXPECT_EQ(r.error,
            "sip0.cube0.pe0.pe_dma at t=245000 ps: sip0.cube0.pe0.pe_dma: the "
            "plan routes a token to 'sip0.cube0.pe0.pe_fetch_store', but there "
            "is no link to it");
}

TEST(Errors, MathStageWithoutAnOpNamesTheTile) {
  run_result r = run_one_pe({tile(7, {math_stage(std::nullopt, 1024)})});
  EXPECT_EQ(r.error,
            "sip0.cube0.pe0.pe_math at t=1000 ps: sip0.cube0.pe0.pe_math: MATH "
            "stage of tile 7 (command 1) has no op");
}

TEST(Errors, MathStageWithAnUnknownOpNamesTheTile) {
  run_result r =
    run_one_pe({tile(3, {math_stage(static_cast<math_op>(9), 1024)})});
  EXPECT_THAT(r.error, HasSubstr("MATH stage of tile 3 (command 1) has an "
                                 "unknown (9) op"));
}

// The request would leave after the setup, at 9 ns; the machine (one cube)
// has no sip0.cube1.
TEST(Errors, DmaToAMemoryTheMachineLacksNamesTheAddress) {
  const uint64_t remote = global_address{mem_space::hbm, 0, 1, 0, 0x1000}.encode();
  run_result r =
    run_one_pe({tile(0, {dma_stage(stage_type::dma_read, remote, 4096)})});
  EXPECT_EQ(r.error,
            "sip0.cube0.pe0.pe_dma at t=9000 ps: sip0.cube0.pe0.pe_dma: tile 0 "
            "(command 1): a DMA to 0x100000001000 (hbm of sip0.cube1): the "
            "machine has no such memory");
}

// Without NOC <-> PE_TCM links another PE's TCM is a memory of the machine
// but no route reaches it.
TEST(Errors, DmaToAnUnreachableTcmNamesBothEnds) {
  const uint64_t tcm = global_address{mem_space::tcm, 0, 0, 1, 0}.encode();
  test_machine sim;
  make_cube(sim, {.pes = 2,
                  .tiles = {{tile(0, {dma_stage(stage_type::dma_write, tcm, 4096)})}},
                  .fabric_links = false});
  const run_result r = run(sim);
  EXPECT_THAT(r.error, HasSubstr("a DMA to 0x2000001000000000 (tcm of sip0.cube0.pe1): no "
                                 "route from sip0.cube0.pe0.pe_dma to sip0.cube0.pe1.pe_tcm"));
}

// A message to a kind without behaviour names the sender.
template <class Kind>
run_result message_to(const std::string& name) {
  test_machine sim;
  sim.add_node("sip0.cube0.pe0.pe_dma",
               make_node_factory<mem_client>(uint64_t{0}, 64u, false));
  sim.add_node(name, make_node_factory<Kind>(typename Kind::config{}));
  sim.add_link("sip0.cube0.pe0.pe_dma", name, ns(1));
  sim.add_link(name, "sip0.cube0.pe0.pe_dma", ns(1));
  return run(sim);
}

TEST(Errors, MessageToMCpuNamesTheSender) {
  // M_CPU takes only kernel completions (and its own host timer).
  run_result r = message_to<m_cpu>("sip0.cube0.m_cpu");
  EXPECT_EQ(r.error, "sip0.cube0.m_cpu at t=1000 ps: unexpected message kind 22 from "
                     "sip0.cube0.pe0.pe_dma (an M_CPU takes kernel completions only)");
}

} // namespace
} // namespace kb
