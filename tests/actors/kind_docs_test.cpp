// The kind docs of actors/ match config/topology.yaml: the shipped topology
// loads against the built-in catalog and every kind reads its values.

#include "actors/builtin_kinds.hpp"
#include "actors/hbm_ctrl.hpp"
#include "actors/noc.hpp"
#include "actors/pe_dma.hpp"
#include "actors/pe_math.hpp"
#include "actors/pe_tcm.hpp"
#include "actors/sram.hpp"
#include "actors/xbar.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/machine/machine.hpp"
#include "tests/actors/harness.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kb {
namespace {

using test::source_dir;

const param_reader& params_of(const topology_spec& t, std::string_view id) {
  const node_spec* n = t.find_node(id);
  if (n == nullptr)
    throw std::runtime_error("no node " + std::string(id));
  return n->params;
}

TEST(KindDocs, DefaultTopologyLoadsAndEveryKindReadsItsValues) {
  const std::string dir = source_dir() + "/config/";
  const topology_spec t =
    load_topology(dir + "topology.yaml", builtin_kinds().catalog());
  const machine_context ctx = context_of(t);

  const auto dma = pe_dma::read_config(params_of(t, "sip0.cube0.pe0.pe_dma"), ctx);
  EXPECT_EQ(dma.setup, Cycles{8});
  const auto math = pe_math::read_config(params_of(t, "sip0.cube0.pe0.pe_math"), ctx);
  EXPECT_EQ(math.lanes, 64u);
  EXPECT_EQ(math.pipeline, Cycles{4});
  EXPECT_EQ(math.cheap_op, Cycles{1});
  EXPECT_EQ(math.expensive_op, Cycles{4});
  EXPECT_EQ(pe_tcm::read_config(params_of(t, "sip0.cube0.pe0.pe_tcm"), ctx).bandwidth,
            Bandwidth::gbps(512));
  EXPECT_EQ(xbar::read_config(params_of(t, "sip0.cube0.xbar"), ctx).latency, ns(2));
  const auto hbm = hbm_ctrl::read_config(params_of(t, "sip0.cube0.hbm"), ctx);
  EXPECT_EQ(hbm.bandwidth, Bandwidth::gbps(512));
  EXPECT_EQ(hbm.latency, ns(100));
  EXPECT_EQ(noc::read_config(params_of(t, "sip0.cube0.noc"), ctx).forward_latency,
            ns(4));
  const auto sr = sram::read_config(params_of(t, "sip0.cube0.sram"), ctx);
  EXPECT_EQ(sr.bandwidth, Bandwidth::gbps(512));
  EXPECT_EQ(sr.latency, ns(20));
  for (const char* k : {"pe_dma", "pe_fetch_store", "pe_math", "pe_tcm", "pe_mmu",
                        "xbar", "hbm_ctrl", "noc", "sram", "m_cpu"})
    EXPECT_TRUE(builtin_kinds().catalog().has_kind(k)) << k;
}

TEST(KindDocs, NonDefaultValuesAreRead) {
  const machine_context ctx;
  param_reader p(YAML::Load("{dma_setup_cycles: 16}"), "t.yaml", "pe_dma", 1);
  EXPECT_EQ(pe_dma::read_config(p, ctx).setup, Cycles{16});
  param_reader x(YAML::Load("{latency_ns: 2.5}"), "t.yaml", "xbar", 1);
  EXPECT_EQ(xbar::read_config(x, ctx).latency, ps(2500));
  param_reader m(YAML::Load("{lanes: 0}"), "t.yaml", "pe_math", 1);
  EXPECT_THROW(pe_math::read_config(m, ctx), config_error);
}

} // namespace
} // namespace kb
