// A process of a split run describes only its part of the machine (issue
// 31): the other processes' nodes by name and place, without their kinds
// made, and only the links it needs: every link with an end of its own,
// and every other link of such a link's source (a credit names its link by
// its number at the source, so a source's links are all there or none).

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/machine/machine.hpp"
#include "tests/actors/harness.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::source_dir;

topology_spec two_sips() {
  return load_topology(source_dir() + "/config/scale/2sip_2cube_4pe.yaml",
                       builtin_kinds().catalog());
}

bool in_sip0(const node_place& p) { return p.sip && *p.sip == 0; }

TEST(MachinePart, OtherProcessesNodesAreKnownByNameOnly) {
  const topology_spec topo = two_sips();
  simulation whole, part;
  build_machine(topo, builtin_kinds(), context_of(topo), whole);
  build_machine(topo, builtin_kinds(), context_of(topo), part,
                [](const node_spec& n) { return in_sip0(n.place); });
  // The same nodes, so the same ids in every process.
  EXPECT_EQ(part.names(), whole.names());
  size_t built = 0;
  for (const node_spec& n : topo.nodes) {
    EXPECT_EQ(part.builds(n.id), in_sip0(n.place)) << n.id;
    EXPECT_TRUE(whole.builds(n.id)) << n.id;
    built += part.builds(n.id) ? 1 : 0;
  }
  EXPECT_GT(built, 0u);
  EXPECT_LT(built, topo.nodes.size());
}

TEST(MachinePart, LinksBetweenOtherProcessesNodesAreLeftOutBySource) {
  const topology_spec topo = two_sips();
  std::map<std::string, bool> sip0;
  for (const node_spec& n : topo.nodes)
    sip0[n.id] = in_sip0(n.place);
  simulation whole, part;
  build_machine(topo, builtin_kinds(), context_of(topo), whole);
  build_machine(topo, builtin_kinds(), context_of(topo), part,
                [](const node_spec& n) { return in_sip0(n.place); });
  const auto& all = whole.described_links();
  const auto& kept = part.described_links();
  ASSERT_EQ(all.size(), topo.links.size());
  // Sources that touch sip0: their own node is there, or one of their links ends there.
  std::set<std::string> touching;
  for (const auto& [src, dst] : all)
    if (sip0.at(src) || sip0.at(dst))
      touching.insert(src);
  // The boundary: some sip1 source links into sip0 (the inter-SIP link),
  // and has links that stay in sip1, which are kept for their numbers.
  size_t boundary_inner = 0;
  for (const auto& [src, dst] : all)
    if (!sip0.at(src) && touching.count(src) && !sip0.at(dst))
      ++boundary_inner;
  EXPECT_GT(boundary_inner, 0u);
  // Exactly the links of the touching sources, in the loader's order.
  std::vector<std::pair<std::string, std::string>> expected;
  for (const auto& l : all)
    if (touching.count(l.first))
      expected.push_back(l);
  EXPECT_EQ(kept, expected);
  EXPECT_LT(kept.size(), all.size());
}

TEST(MachinePart, ANodeDescribedAsElsewhereThatThePartitionPutsHereFailsTheRun) {
  simulation sim;
  sim.add_node("a", {}); // another process's, as far as this one knows
  run_options opts;
  try {
    (void)sim.run(opts); // one process: every node is its own
    FAIL() << "expected the run to fail";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("node 'a' was described as another process's"));
  }
}

} // namespace
} // namespace kb
