// The shipped config/topology.yaml: what it expands
// to, exactly.

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "runtime/config/pe_wires.hpp"
#include "runtime/config/topology_loader.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

class default_topology : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    spec_ = new topology_spec(load_topology(test::config_path("topology.yaml"),
                                            test::test_catalog()));
  }
  static void TearDownTestSuite() {
    delete spec_;
    spec_ = nullptr;
  }
  static const topology_spec& spec() { return *spec_; }

  static const link_spec& link(const std::string& src, const std::string& dst) {
    const link_spec* l = spec_->find_link(src, dst);
    if (l == nullptr)
      throw std::runtime_error("no link " + src + " -> " + dst);
    return *l;
  }

private:
  static inline topology_spec* spec_ = nullptr;
};

TEST_F(default_topology, globals_have_design_defaults) {
  EXPECT_EQ(spec().clock_period_ps, 1000u);
  EXPECT_EQ(spec().pe_wire_latency_cycles, 1u);
  EXPECT_EQ(spec().pe_queue_depth, 4u);
  EXPECT_EQ(spec().link_queue_depth, 4u);
  EXPECT_EQ(spec().sips, 1u);
  EXPECT_EQ(spec().cubes_per_sip, 1u);
  EXPECT_EQ(spec().pe_layout.rows, 2u);
  EXPECT_EQ(spec().pe_layout.cols, 2u);
}

TEST_F(default_topology, expands_to_exact_node_ids) {
  std::vector<std::string> expected = {"sip0.cube0.hbm", "sip0.cube0.m_cpu",
                                       "sip0.cube0.noc"};
  for (int p = 0; p < 4; ++p)
    for (const char* c : {"pe_cpu", "pe_dma", "pe_fetch_store", "pe_gemm",
                          "pe_math", "pe_mmu", "pe_scheduler", "pe_tcm"})
      expected.push_back("sip0.cube0.pe" + std::to_string(p) + "." + c);
  expected.push_back("sip0.cube0.sram");
  expected.push_back("sip0.cube0.xbar");
  std::vector<std::string> ids;
  for (const node_spec& n : spec().nodes)
    ids.push_back(n.id);
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(ids.size(), 37u);
}

TEST_F(default_topology, nodes_carry_kind_impl_and_params) {
  const node_spec* hbm = spec().find_node("sip0.cube0.hbm");
  ASSERT_NE(hbm, nullptr);
  EXPECT_EQ(hbm->kind, "hbm_ctrl");
  EXPECT_EQ(hbm->impl, "hbm_ctrl_v1");
  EXPECT_EQ(hbm->params.bandwidth("bandwidth_gbps"), Bandwidth::gbps(512));
  EXPECT_EQ(hbm->params.required<SimTime>("latency_ns"), ns(100));
  EXPECT_EQ(hbm->where.file, test::config_path("topology.yaml"));

  const node_spec* gemm = spec().find_node("sip0.cube0.pe3.pe_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, "pe_gemm");
  EXPECT_EQ(gemm->params.required<uint64_t>("mac_rows"), 32u);
  EXPECT_EQ(gemm->params.required<uint64_t>("mac_cols"), 32u);

  const node_spec* math = spec().find_node("sip0.cube0.pe1.pe_math");
  ASSERT_NE(math, nullptr);
  EXPECT_EQ(math->params.required<uint64_t>("lanes"), 64u);
  EXPECT_EQ(math->params.required<Cycles>("pipeline_cycles"), Cycles{4});
  EXPECT_EQ(math->params.required<Cycles>("cheap_op_cycles"), Cycles{1});
  EXPECT_EQ(math->params.required<Cycles>("expensive_op_cycles"), Cycles{4});

  EXPECT_EQ(spec()
                .find_node("sip0.cube0.xbar")
                ->params.required<SimTime>("latency_ns"),
            ns(2));
  EXPECT_EQ(spec()
                .find_node("sip0.cube0.pe0.pe_dma")
                ->params.required<Cycles>("dma_setup_cycles"),
            Cycles{8});
  EXPECT_EQ(spec()
                .find_node("sip0.cube0.pe2.pe_tcm")
                ->params.bandwidth("bandwidth_gbps"),
            Bandwidth::gbps(512));
  EXPECT_EQ(spec().find_node("sip0.cube0.pe4.pe_tcm"), nullptr);
}

TEST_F(default_topology, fabric_links_have_design_latency_and_bandwidth) {
  // 21 PE wires per PE; per PE 8 fabric links (DMA <-> XBAR, DMA <-> NOC,
  // NOC <-> CPU, NOC <-> TCM), and 8 of the cube (XBAR <-> HBM, NOC <->
  // SRAM, M_CPU <-> NOC, NOC <-> XBAR).
  EXPECT_EQ(spec().links.size(), 4u * 21u + 4u * 8u + 8u);
  for (int p = 0; p < 4; ++p) {
    const std::string dma = "sip0.cube0.pe" + std::to_string(p) + ".pe_dma";
    for (const link_spec* l :
         {&link(dma, "sip0.cube0.xbar"), &link("sip0.cube0.xbar", dma)}) {
      EXPECT_EQ(l->latency, ns(1));
      EXPECT_EQ(l->bandwidth, Bandwidth::gbps(256));
      EXPECT_EQ(l->queue_depth, 4u);
    }
  }
  for (const link_spec* l : {&link("sip0.cube0.xbar", "sip0.cube0.hbm"),
                             &link("sip0.cube0.hbm", "sip0.cube0.xbar")}) {
    EXPECT_EQ(l->latency, ps(1000));
    EXPECT_EQ(l->bandwidth, Bandwidth::gbps(512));
  }
  const link_spec& launch = link("sip0.cube0.noc", "sip0.cube0.pe2.pe_cpu");
  EXPECT_EQ(launch.latency, ns(1));
  EXPECT_EQ(launch.bandwidth, Bandwidth::gbps(256));
  EXPECT_EQ(launch.where.line,
            test::line_containing(test::config_path("topology.yaml"),
                                  "{from: noc, to: pe*.pe_cpu,"));
  EXPECT_NE(launch.where.line, 0u);
  EXPECT_EQ(spec().find_link("sip0.cube0.pe0.pe_dma", "sip0.cube0.hbm"),
            nullptr);
  for (const link_spec* l : {&link("sip0.cube0.noc", "sip0.cube0.xbar"),
                             &link("sip0.cube0.xbar", "sip0.cube0.noc"),
                             &link("sip0.cube0.noc", "sip0.cube0.pe3.pe_tcm"),
                             &link("sip0.cube0.pe3.pe_tcm", "sip0.cube0.noc")}) {
    EXPECT_EQ(l->latency, ns(1));
    EXPECT_EQ(l->bandwidth, Bandwidth::gbps(256));
  }
}

TEST_F(default_topology, pe_wires_are_the_default_wires_at_one_cycle) {
  std::set<std::pair<std::string, std::string>> expected, actual;
  for (const pe_wire& w : default_pe_wires())
    expected.emplace(w.from, w.to);
  EXPECT_EQ(expected.size(), 21u);
  const std::string pe = "sip0.cube0.pe1.";
  for (const link_spec& l : spec().links) {
    if (!l.src.starts_with(pe) || !l.dst.starts_with(pe))
      continue;
    actual.emplace(l.src.substr(pe.size()), l.dst.substr(pe.size()));
    EXPECT_EQ(l.latency, ps(1000)) << l.src << " -> " << l.dst;
    EXPECT_EQ(l.bandwidth, std::nullopt) << l.src << " -> " << l.dst;
    EXPECT_EQ(l.queue_depth, 4u) << l.src << " -> " << l.dst;
  }
  EXPECT_EQ(actual, expected);
}

TEST_F(default_topology, output_is_sorted_and_repeatable) {
  EXPECT_TRUE(std::is_sorted(
      spec().nodes.begin(), spec().nodes.end(),
      [](const node_spec& a, const node_spec& b) { return a.id < b.id; }));
  EXPECT_TRUE(std::is_sorted(spec().links.begin(), spec().links.end(),
                             [](const link_spec& a, const link_spec& b) {
                               return std::tie(a.src, a.dst) <
                                      std::tie(b.src, b.dst);
                             }));
  const topology_spec again =
      load_topology(test::config_path("topology.yaml"),
                    test::test_catalog());
  ASSERT_EQ(again.links.size(), spec().links.size());
  for (std::size_t i = 0; i < again.links.size(); ++i) {
    EXPECT_EQ(again.links[i].src, spec().links[i].src);
    EXPECT_EQ(again.links[i].dst, spec().links[i].dst);
    EXPECT_EQ(again.links[i].latency, spec().links[i].latency);
  }
}

} // namespace
} // namespace kb
