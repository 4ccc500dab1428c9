// The fabric routes built on a thread of their own (fabric_beside, used by
// `kernbench run` on two or more threads) are the routes build_fabric gives,
// hop by hop, and a machine without a route says so from wait().

#include "tests/pipeline/pipeline_support.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/machine/fabric_beside.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace kb {
namespace {

topology_spec two_by_two() {
  return load_topology(test::config_file("scale/2sip_2cube_4pe.yaml"),
                       builtin_kinds().catalog());
}

TEST(FabricBeside, GivesTheRoutesOfBuildFabricHopByHop) {
  const auto topo = two_by_two();
  const auto want = build_fabric(topo, builtin_kinds());
  fabric_beside beside(fabric_inputs_of(topo, builtin_kinds()));
  const auto got = beside.fabric(); // handed out before the routes are in
  beside.wait();
  ASSERT_EQ(got->size(), want->size());
  size_t routes = 0;
  for (node_id from = 0; from < want->size(); ++from)
    for (node_id to = 0; to < want->size(); ++to) {
      EXPECT_EQ(got->next_hop(from, to), want->next_hop(from, to)) << from << " -> " << to;
      routes += want->next_hop(from, to).has_value();
    }
  EXPECT_GT(routes, 1000u); // 2 SIPs x 2 cubes x 4 PEs: every DMA reaches every memory
}

TEST(FabricBeside, AMachineWithoutARouteSaysSoFromWait) {
  auto in = fabric_inputs_of(two_by_two(), builtin_kinds());
  in.links.clear(); // nothing reaches anything
  fabric_beside beside(std::move(in));
  try {
    beside.wait();
    FAIL() << "expected the missing route";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(test::config_file("scale/2sip_2cube_4pe.yaml") + ": no route from ", 0),
              0u)
      << what;
  }
  beside.wait(); // the error is given once; waiting again returns
}

} // namespace
} // namespace kb
