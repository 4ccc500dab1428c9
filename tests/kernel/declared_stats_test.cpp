// Declared statistics (ADR-0038): every figure a node of a real run reports
// is a statistic its implementation declares (or one of the engine's link
// statistics), named by its declaration; the checker fails an undeclared
// figure and a figure whose name is not its declaration's.

#include "actors/builtin_kinds.hpp"
#include "runtime/engine/link_stats.hpp"
#include "runtime/machine/command_table.hpp"
#include "runtime/machine/memory_stats.hpp"
#include "runtime/machine/pipeline_stats.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace kb {
namespace {

using test::hbm;

bool is_link_stat(const figure& f) {
  return f.is(link_stats::bytes) || f.is(link_stats::messages) || f.is(link_stats::busy_ps);
}

/// The figure's name from a declared pattern and its qualifier.
std::string named(const std::string& pattern, const std::string& q) {
  const auto at = pattern.find("{}");
  return at == std::string::npos ? pattern
                                 : pattern.substr(0, at) + q + pattern.substr(at + 2);
}

/// Every problem with the figures of node `n` of implementation `impl`:
/// an undeclared statistic, a name other than the declaration's.
std::vector<std::string> undeclared(const node_summary& n, const impl_doc& impl) {
  std::vector<std::string> out;
  for (const figure& f : n.figures) {
    const std::string name = f.name();
    const std::string q(f.qualifier);
    if (is_link_stat(f)) {
      if (name != "link:" + q + name.substr(name.rfind('.')))
        out.push_back(n.name + ": link figure " + name + " of " + q);
      continue;
    }
    const auto it = std::find_if(impl.stats.begin(), impl.stats.end(),
                                 [&](const stat_doc& s) { return s.id == f.stat; });
    if (it == impl.stats.end())
      out.push_back(n.name + ": " + name + " is not a statistic of " + impl.impl);
    else if (named(it->name, q) != name)
      out.push_back(n.name + ": " + name + " is not named as " + it->name);
  }
  return out;
}

TEST(DeclaredStats, EveryFigureOfARunIsDeclaredByItsImplementation) {
  // Every PE loads, computes and stores: lanes, commands, kernels, the
  // scheduler, HBM, XBAR, NOC and M_CPU all report.
  std::map<std::string, test::test_kernel> kernels;
  for (int pe = 0; pe < 4; ++pe)
    kernels["sip0.cube0.pe" + std::to_string(pe)] = [pe](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(4096 * pe), dtype::f32}, {8, 8});
      tl.store({hbm(65536 + 4096 * pe), dtype::f32}, tl.dot(a, a));
    };
  const auto r = test::run_kernels(kernels);
  ASSERT_EQ(r.run.error, "");
  const impl_catalog& impls = builtin_kinds().catalog();
  size_t figures = 0, checked_kinds = 0;
  std::set<std::string> kinds;
  for (const node_summary& n : r.run.result.nodes) {
    const node_spec* spec = r.run.topology.find_node(n.name);
    ASSERT_NE(spec, nullptr) << n.name;
    const impl_doc* impl = impls.find(spec->impl);
    ASSERT_NE(impl, nullptr) << spec->impl;
    EXPECT_EQ(undeclared(n, *impl), std::vector<std::string>{});
    figures += n.figures.size();
    if (!n.figures.empty())
      kinds.insert(impl->kind);
  }
  checked_kinds = kinds.size();
  EXPECT_GT(figures, 100u);
  // Every kind of the default machine reported something, but pe_mmu: it
  // is not linked into the fabric there and reports only requests it passed.
  EXPECT_EQ(checked_kinds, 12u) << fmt::format("{}", fmt::join(kinds, ", "));
  EXPECT_EQ(kinds.count("pe_mmu"), 0u);
  // The report reads them by declaration: the HBM's and the lanes' figures.
  const node_summary* mem = find_node(r.run.result, "sip0.cube0.hbm");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(figure_or_zero(*mem, memory_stats.read_bytes), 4u * 8 * 8 * 4);
  EXPECT_EQ(figure_or_zero(*mem, memory_stats.write_bytes), 4u * 8 * 8 * 4);
  const node_summary* dma = find_node(r.run.result, "sip0.cube0.pe2.pe_dma");
  ASSERT_NE(dma, nullptr);
  EXPECT_EQ(figure_or_zero(*dma, lane_stats::stages, "read"), 1u);
  EXPECT_EQ(figure_or_zero(*dma, lane_stats::stages, "write"), 1u);
  EXPECT_EQ(figure_or_zero(*dma, lane_stats::bytes, "read"), 256u);
  const node_summary* cpu = find_node(r.run.result, "sip0.cube0.pe1.pe_cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(figure_or_zero(*cpu, kernel_stats::finished), 1u);
  const auto rows = command_table::rows_of(cpu->tables);
  ASSERT_FALSE(rows.empty());
  EXPECT_TRUE(rows[0].done);
}

TEST(DeclaredStats, TheCheckerFailsAnUndeclaredOrMisnamedFigure) {
  const impl_doc& hbm_impl = *builtin_kinds().catalog().find("hbm_ctrl_v1");
  node_summary n;
  n.name = "sip0.cube0.hbm";
  n.figures.push_back({"busy_ps", 5, memory_stats.busy_ps.id, ""});
  EXPECT_EQ(undeclared(n, hbm_impl), std::vector<std::string>{});
  // A lane statistic on a memory: not what hbm_ctrl_v1 declares.
  n.figures.push_back({"read.busy_ps", 1, lane_stats::busy_ps.id, "read"});
  // A declared statistic under another name.
  n.figures.push_back({"busy", 2, memory_stats.busy_ps.id, ""});
  EXPECT_EQ(undeclared(n, hbm_impl),
            (std::vector<std::string>{
              "sip0.cube0.hbm: read.busy_ps is not a statistic of hbm_ctrl_v1",
              "sip0.cube0.hbm: busy is not named as busy_ps"}));
  // Ids are distinct across every declaration of the build.
  std::set<uint32_t> ids;
  size_t declared = 0;
  for (const impl_doc* d : builtin_kinds().catalog().all_sorted())
    for (const stat_doc& s : d->stats) {
      ids.insert(s.id);
      ++declared;
    }
  for (const stat_decl& s : {link_stats::bytes, link_stats::messages, link_stats::busy_ps}) {
    ids.insert(s.id);
    ++declared;
  }
  // Shared declarations (lane statistics of four units, memory of three
  // impls) repeat; every distinct pattern in a scope has its own id.
  std::set<std::string> keys;
  for (const impl_doc* d : builtin_kinds().catalog().all_sorted())
    for (const stat_doc& s : d->stats)
      keys.insert(std::to_string(s.id) + " " + s.name);
  EXPECT_EQ(keys.size() + 3, ids.size());
  EXPECT_GT(declared, ids.size());
}

} // namespace
} // namespace kb
