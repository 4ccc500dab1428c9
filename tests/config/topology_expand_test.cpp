// Expansion rules on small hand-written topologies: defaults, units, the
// built-in PE wires, patterns and links at every level.

#include <gtest/gtest.h>

#include "runtime/config/topology_loader.hpp"
#include "runtime/config/yaml_source.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

topology_spec load(const std::string& name) {
  return load_topology(test::data_path(name), test::test_catalog());
}

std::vector<std::string> node_ids(const topology_spec& t) {
  std::vector<std::string> out;
  for (const node_spec& n : t.nodes)
    out.push_back(n.id);
  return out;
}

std::vector<std::string> link_names(const topology_spec& t) {
  std::vector<std::string> out;
  for (const link_spec& l : t.links)
    out.push_back(l.src + " -> " + l.dst);
  return out;
}

TEST(topology_expand, minimal_file_takes_global_and_param_defaults) {
  const topology_spec t = load("minimal.yaml");
  EXPECT_EQ(t.clock_period_ps, 1000u);
  EXPECT_EQ(t.pe_wire_latency_cycles, 1u);
  EXPECT_EQ(t.pe_layout.count(), 1u);
  EXPECT_EQ(node_ids(t), (std::vector<std::string>{
                             "sip0.cube0.hbm", "sip0.cube0.pe0.pe_dma",
                             "sip0.cube0.pe0.pe_gemm", "sip0.cube0.xbar"}));
  EXPECT_EQ(t.find_node("sip0.cube0.pe0.pe_dma")
                ->params.required<Cycles>("dma_setup_cycles"),
            Cycles{8});
  EXPECT_EQ(t.find_node("sip0.cube0.pe0.pe_gemm")
                ->params.required<uint64_t>("mac_cols"),
            8u);
  EXPECT_EQ(
      t.find_node("sip0.cube0.xbar")->params.required<SimTime>("latency_ns"),
      ns(2));
  EXPECT_EQ(
      t.find_node("sip0.cube0.hbm")->params.required<SimTime>("latency_ns"),
      ps(80500));
}

TEST(topology_expand, link_units_depths_and_bandwidth_are_exact) {
  const topology_spec t = load("minimal.yaml");
  EXPECT_EQ(link_names(t),
            (std::vector<std::string>{
                "sip0.cube0.pe0.pe_dma -> sip0.cube0.pe0.pe_gemm",
                "sip0.cube0.pe0.pe_dma -> sip0.cube0.xbar",
                "sip0.cube0.xbar -> sip0.cube0.hbm",
                "sip0.cube0.xbar -> sip0.cube0.pe0.pe_dma"}));
  const link_spec* wire =
      t.find_link("sip0.cube0.pe0.pe_dma", "sip0.cube0.pe0.pe_gemm");
  EXPECT_EQ(wire->latency, ps(1000));
  EXPECT_EQ(wire->bandwidth, std::nullopt);
  EXPECT_EQ(wire->queue_depth, 2u);
  const link_spec* up = t.find_link("sip0.cube0.pe0.pe_dma", "sip0.cube0.xbar");
  EXPECT_EQ(up->latency, ps(1500));
  EXPECT_EQ(up->bandwidth, Bandwidth{12500});
  EXPECT_EQ(up->queue_depth, 4u);
  EXPECT_EQ(up->where.line, 14u);
  const link_spec* hbm = t.find_link("sip0.cube0.xbar", "sip0.cube0.hbm");
  EXPECT_EQ(hbm->latency, ps(750));
  EXPECT_EQ(hbm->bandwidth, std::nullopt);
  EXPECT_EQ(t.find_link("sip0.cube0.hbm", "sip0.cube0.xbar"), nullptr);
}

TEST(topology_expand, absent_pe_links_mean_default_wires_without_mmu) {
  const topology_spec t = load("default_wires.yaml");
  EXPECT_EQ(t.pe_layout.count(), 2u);
  EXPECT_EQ(t.nodes.size(), 14u);
  EXPECT_EQ(t.links.size(), 2u * 19u);
  for (const link_spec& l : t.links) {
    EXPECT_EQ(l.latency, ps(1000)) << l.src; // 2 cycles of 500 ps
    EXPECT_EQ(l.queue_depth, 3u) << l.src;
    EXPECT_EQ(l.bandwidth, std::nullopt) << l.src;
    EXPECT_EQ(l.src.substr(0, 15), l.dst.substr(0, 15)); // same PE
  }
  EXPECT_NE(
      t.find_link("sip0.cube0.pe1.pe_tcm", "sip0.cube0.pe1.pe_fetch_store"),
      nullptr);
  EXPECT_NE(
      t.find_link("sip0.cube0.pe0.pe_math", "sip0.cube0.pe0.pe_scheduler"),
      nullptr);
  EXPECT_EQ(t.find_link("sip0.cube0.pe0.pe_scheduler", "sip0.cube0.pe0.pe_tcm"),
            nullptr);
}

TEST(topology_expand, patterns_and_links_at_every_level) {
  const topology_spec t = load("scaleout.yaml");
  EXPECT_EQ(t.sips, 2u);
  EXPECT_EQ(t.cubes_per_sip, 2u);
  EXPECT_EQ(t.nodes.size(), 2u * 2u * (1u + 2u * 2u));
  EXPECT_NE(t.find_node("sip1.cube1.pe1.pe_gemm"), nullptr);
  // per cube: noc -> 2 DMAs, 2 DMA -> GEMM pairs; per SIP: 2; system: 2
  EXPECT_EQ(t.links.size(), 4u * 4u + 2u * 2u + 2u);
  // '*' in both ends pairs each PE's DMA with its own GEMM.
  const link_spec* pair =
      t.find_link("sip1.cube0.pe1.pe_dma", "sip1.cube0.pe1.pe_gemm");
  ASSERT_NE(pair, nullptr);
  EXPECT_EQ(pair->latency, ps(7));
  EXPECT_EQ(t.find_link("sip1.cube0.pe0.pe_dma", "sip1.cube0.pe1.pe_gemm"),
            nullptr);
  EXPECT_NE(t.find_link("sip0.cube1.noc", "sip0.cube1.pe0.pe_dma"), nullptr);
  const link_spec* ucie = t.find_link("sip1.cube1.noc", "sip1.cube0.noc");
  ASSERT_NE(ucie, nullptr);
  EXPECT_EQ(ucie->latency, ns(10));
  EXPECT_EQ(ucie->bandwidth, Bandwidth::gbps(256));
  const link_spec* inter = t.find_link("sip0.cube0.noc", "sip1.cube0.noc");
  ASSERT_NE(inter, nullptr);
  EXPECT_EQ(inter->latency, ns(500));
  EXPECT_EQ(inter->bandwidth, Bandwidth::gbps(100));
  EXPECT_EQ(t.find_link("sip0.cube1.noc", "sip1.cube1.noc"), nullptr);
}

TEST(topology_expand, every_node_is_placed_by_the_level_that_holds_it) {
  // A component of the system, of each SIP, of each cube and of each PE.
  const std::string yaml = "system:\n"
                           "  sips: 2\n"
                           "  components: {host: {kind: noc, impl: noc_v1}}\n"
                           "sip:\n"
                           "  cubes: 3\n"
                           "  components: {ucie: {kind: noc, impl: noc_v1}}\n"
                           "cube:\n"
                           "  pe_layout: {count: 12}\n"
                           "  pe_template:\n"
                           "    components:\n"
                           "      pe_dma: {impl: pe_dma_v1}\n"
                           "    links: []\n"
                           "  components:\n"
                           "    noc: {impl: noc_v1}\n";
  const topology_spec t = parse_topology(load_yaml_text(yaml, "t.yaml"), "t.yaml",
                                         test::test_catalog());
  auto place = [&](const std::string& id) {
    const node_spec* n = t.find_node(id);
    if (n == nullptr)
      throw std::runtime_error("no node " + id);
    return n->place;
  };
  EXPECT_EQ(place("sip1.cube2.pe11.pe_dma"), (node_place{1, 2, 11})); // a PE's unit
  EXPECT_EQ(place("sip0.cube1.pe10.pe_dma"), (node_place{0, 1, 10})); // pe10 sorts before pe2
  EXPECT_EQ(place("sip1.cube0.noc"), (node_place{1, 0, {}}));         // a cube's node
  EXPECT_EQ(place("sip1.ucie"), (node_place{1, {}, {}}));             // a SIP's node
  EXPECT_EQ(place("host"), node_place{});                              // the system's
  EXPECT_TRUE(place("sip0.cube1.noc").in_cube());
  EXPECT_FALSE(place("sip0.ucie").in_cube());
  for (const node_spec& n : t.nodes) // no node left unplaced below the system
    EXPECT_EQ(n.place.sip.has_value(), n.id != "host") << n.id;
}

} // namespace
} // namespace kb
