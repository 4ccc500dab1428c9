// A process of a split run describes only its part of the machine (issue
// 31): the other processes' nodes by id and place (by name too where a link
// it keeps names them), without their kinds made, and only the links it needs: every link with an end of its own,
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

TEST(MachinePart, OtherProcessesNodesAreKnownByIdAndTheBoundaryByName) {
  const topology_spec topo = two_sips();
  simulation whole, part;
  build_machine(topo, builtin_kinds(), context_of(topo), whole);
  build_machine(topo, builtin_kinds(), context_of(topo), part,
                [](const node_spec& n) { return in_sip0(n.place); });
  // The same nodes, so the same ids in every process; another process's
  // node has a name here only at the far end of a link this one keeps.
  const std::vector<std::string> ids = whole.names(), here = part.names();
  ASSERT_EQ(here.size(), ids.size());
  std::set<std::string> link_ends;
  for (const auto& [src, dst] : part.described_links()) {
    link_ends.insert(src);
    link_ends.insert(dst);
  }
  size_t built = 0, boundary = 0, unnamed = 0;
  for (size_t i = 0; i < topo.nodes.size(); ++i) {
    const node_spec& n = topo.nodes[i];
    ASSERT_EQ(ids[i], n.id);
    if (in_sip0(n.place)) {
      EXPECT_EQ(here[i], n.id);
    } else if (link_ends.count(n.id)) {
      EXPECT_EQ(here[i], n.id);
      ++boundary;
    } else {
      EXPECT_EQ(here[i], "") << n.id;
      ++unnamed;
    }
    EXPECT_EQ(part.builds(n.id), in_sip0(n.place)) << n.id;
    EXPECT_TRUE(whole.builds(n.id)) << n.id;
    built += part.builds(n.id) ? 1 : 0;
  }
  EXPECT_GT(built, 0u);
  EXPECT_LT(built, topo.nodes.size());
  // sip1's cube0 NOC (the inter-SIP link's far end) and the nodes its kept
  // links reach; the rest of sip1 by id alone.
  EXPECT_GT(boundary, 0u);
  EXPECT_GT(unnamed, boundary);
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

/// What run() of one process throws as a std::logic_error ("" if nothing).
std::string run_failure(simulation& sim) {
  try {
    (void)sim.run(run_options{}); // one process: every node is its own
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

TEST(MachinePart, ANodeDescribedAsElsewhereThatThePartitionPutsHereFailsTheRun) {
  simulation sim;
  sim.add_node("a", {}); // another process's, as far as this one knows
  EXPECT_THAT(run_failure(sim), HasSubstr("node 'a' was described as another process's"));
}

class idle : public node {
public:
  idle(caf::actor_config& cfg, node_init init) : node(cfg, std::move(init)) {}

protected:
  void on_message(sim_event&) override {}
};

// A node known by id only takes its id from its place among the others,
// so nodes must come in id order around it; and the partition may not put
// it here either (it is named by its id).
TEST(MachinePart, NodesKnownByIdOnlyTakeTheirIdsInOrder) {
  {
    simulation sim;
    sim.add_node("a", make_node_factory<idle>());
    sim.add_elsewhere({});
    sim.add_node("c", {});
    EXPECT_EQ(sim.names(), (std::vector<std::string>{"a", "", "c"}));
    EXPECT_THAT(run_failure(sim), HasSubstr("node #1 was described as another process's"));
  }
  {
    simulation sim;
    sim.add_node("b", {});
    sim.add_elsewhere({});
    EXPECT_THROW(sim.add_node("a", {}), std::logic_error);
  }
  {
    simulation sim;
    sim.add_node("b", {});
    sim.add_node("a", {});
    EXPECT_THROW(sim.add_elsewhere({}), std::logic_error);
  }
}

} // namespace
} // namespace kb
