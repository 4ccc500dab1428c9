// build_machine makes the kinds on several threads (issue 31): the same
// machine as on one thread, and for bad input the same error, the one the
// sequential loop meets first, whichever block of nodes a thread had.

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/machine/machine.hpp"
#include "runtime/parallel_indices.hpp"
#include "tests/actors/harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb {
namespace {

using test::source_dir;

topology_spec machine_1024() { // 4 SIPs x 4 cubes x 64 PEs: ~8,000 nodes
  return load_topology(source_dir() + "/config/scale/4sip_4cube_64pe.yaml",
                       builtin_kinds().catalog());
}

std::string build_error(const topology_spec& topo, size_t threads) {
  simulation sim;
  try {
    build_machine(topo, builtin_kinds(), context_of(topo), sim, {}, threads);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(built)";
}

/// Index in topo.nodes of the PE_CPU of PE `pe` of cube 0 of SIP `sip`.
size_t cpu_of(const topology_spec& topo, int sip, int pe) {
  const std::string id = "sip" + std::to_string(sip) + ".cube0.pe" + std::to_string(pe) + ".pe_cpu";
  const auto it = std::find_if(topo.nodes.begin(), topo.nodes.end(),
                               [&](const node_spec& n) { return n.id == id; });
  EXPECT_NE(it, topo.nodes.end()) << id;
  return static_cast<size_t>(it - topo.nodes.begin());
}

/// Drops the link of PE_CPU `i`'s declared port, to its PE's scheduler.
void drop_port_link(topology_spec& topo, size_t i) {
  const std::string& id = topo.nodes[i].id;
  const std::string to = id.substr(0, id.rfind('.')) + ".pe_scheduler";
  const auto before = topo.links.size();
  std::erase_if(topo.links, [&](const link_spec& l) { return l.src == id && l.dst == to; });
  ASSERT_EQ(topo.links.size(), before - 1) << id;
}

TEST(MachineBuildThreads, TheSameMachineOnOneAndOnFourThreads) {
  const topology_spec topo = machine_1024();
  ASSERT_GT(topo.nodes.size(), 4 * min_parallel_block);
  simulation one, four;
  build_machine(topo, builtin_kinds(), context_of(topo), one, {}, 1);
  build_machine(topo, builtin_kinds(), context_of(topo), four, {}, 4);
  EXPECT_EQ(four.names(), one.names());
  EXPECT_EQ(four.described_links(), one.described_links());
  for (const node_spec& n : topo.nodes)
    ASSERT_TRUE(four.builds(n.id)) << n.id;
}

TEST(MachineBuildThreads, AMissingPortLinkIsTheFirstOneWhateverTheThreads) {
  topology_spec topo = machine_1024();
  const size_t early = cpu_of(topo, 1, 3), late = cpu_of(topo, 3, 60);
  ASSERT_LT(early, late);
  drop_port_link(topo, late);
  const std::string late_only = build_error(topo, 1);
  EXPECT_NE(late_only.find(topo.nodes[late].id + ": port "), std::string::npos) << late_only;
  EXPECT_EQ(build_error(topo, 4), late_only);
  drop_port_link(topo, early); // now a failure in an earlier thread's block too
  const std::string first = build_error(topo, 1);
  EXPECT_NE(first.find(topo.nodes[early].id + ": port "), std::string::npos) << first;
  for (size_t threads : {2u, 4u, 7u})
    EXPECT_EQ(build_error(topo, threads), first) << threads << " threads";
}

TEST(MachineBuildThreads, AKindThatCannotBeMadeIsTheFirstOneWhateverTheThreads) {
  topology_spec topo = machine_1024();
  const size_t early = cpu_of(topo, 0, 9), late = cpu_of(topo, 2, 17);
  for (size_t i : {late, early})
    topo.nodes[i].impl = "no_such_impl_" + std::to_string(i);
  const std::string first = build_error(topo, 1);
  EXPECT_NE(first.find("no_such_impl_" + std::to_string(early)), std::string::npos) << first;
  for (size_t threads : {2u, 4u, 16u})
    EXPECT_EQ(build_error(topo, threads), first) << threads << " threads";
}

} // namespace
} // namespace kb
