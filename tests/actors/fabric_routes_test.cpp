// The route tables of fabric_map (ADR-0012) against a plain reference on a
// machine with every shape of node the builder treats apart: leaves linked
// to one or two forwarders and to a destination directly (a PE's DMA and
// TCM), memories on one forwarder, nodes off the fabric, forwarders joined
// in a ring with equal-cost paths (ties), and an unlinked TCM. For every
// router and destination the next hop must be the reference's: the out link
// (to a forwarder, or to the destination itself) that minimises link
// latency plus the shortest distance from there whose inner nodes are all
// forwarders, ties to the lowest next-hop id.

#include "runtime/machine/fabric_map.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <limits>
#include <optional>

namespace kb {
namespace {

constexpr uint64_t inf = std::numeric_limits<uint64_t>::max();

struct machine {
  std::vector<fabric_node> nodes;
  std::vector<fabric_link> links;
  node_id add(std::string name, fabric_kind k) {
    nodes.push_back({std::move(name), k});
    return static_cast<node_id>(nodes.size() - 1);
  }
  void pair(node_id a, node_id b, uint64_t l) {
    links.push_back({a, b, l});
    links.push_back({b, a, l});
  }
};

/// 2 SIPs x 2 cubes x 3 PEs; XBAR and NOC per cube; UCIe between the NOCs
/// of a SIP's cubes, inter-SIP links between the cube-0 NOCs; latencies
/// chosen so that some routes tie.
machine build() {
  machine m;
  const fabric_kind fwd{fabric_role::forwarder};
  std::vector<node_id> nocs;
  for (uint32_t s = 0; s < 2; ++s)
    for (uint32_t c = 0; c < 2; ++c) {
      const std::string cube = fmt::format("sip{}.cube{}", s, c);
      const node_id xbar = m.add(cube + ".xbar", fwd);
      const node_id noc = m.add(cube + ".noc", fwd);
      nocs.push_back(noc);
      m.pair(xbar, noc, 1 + c);
      m.pair(m.add(cube + ".hbm", {fabric_role::memory, mem_space::hbm}), xbar, 1);
      m.pair(m.add(cube + ".sram", {fabric_role::memory, mem_space::sram}), noc, 2);
      m.pair(m.add(cube + ".m_cpu", {fabric_role::none}), noc, 1);
      for (uint32_t p = 0; p < 3; ++p) {
        const std::string pe = fmt::format("{}.pe{}", cube, p);
        const node_id dma = m.add(pe + ".pe_dma", {fabric_role::requester});
        const node_id tcm = m.add(pe + ".pe_tcm", {fabric_role::memory, mem_space::tcm});
        m.pair(dma, xbar, 1);
        if (p != 2) // pe2's DMA reaches the NOC only through the XBAR
          m.pair(dma, noc, 1);
        m.pair(dma, tcm, 1);
        if (p != 1) // pe1's TCM is reachable from its own DMA only
          m.pair(tcm, noc, 1 + p);
      }
    }
  m.pair(nocs[0], nocs[1], 10); // UCIe
  m.pair(nocs[2], nocs[3], 10);
  m.pair(nocs[0], nocs[2], 500); // inter-SIP
  m.pair(nocs[1], nocs[3], 500); // a second inter-SIP link: equal-cost paths
  return m;
}

TEST(FabricRoutes, EveryNextHopIsTheReferences) {
  const machine m = build();
  const fabric_map f = fabric_map::build(m.nodes, m.links);
  const size_t n = m.nodes.size();
  auto role = [&](node_id v) { return m.nodes[v].kind.role; };
  std::vector<std::vector<std::pair<node_id, uint64_t>>> out(n);
  for (const auto& l : m.links)
    out[l.src].push_back({l.dst, l.latency_ps});
  size_t checked = 0, routed = 0;
  for (node_id d = 0; d < n; ++d) {
    if (role(d) != fabric_role::requester && role(d) != fabric_role::memory)
      continue;
    // dist[x]: shortest x -> d whose inner nodes are forwarders (Bellman-Ford).
    std::vector<uint64_t> dist(n, inf);
    dist[d] = 0;
    for (size_t round = 0; round < n; ++round)
      for (node_id x = 0; x < n; ++x) {
        if (role(x) != fabric_role::forwarder)
          continue;
        for (auto [y, l] : out[x])
          if ((y == d || role(y) == fabric_role::forwarder) && dist[y] != inf)
            dist[x] = std::min(dist[x], l + dist[y]);
      }
    for (node_id v = 0; v < n; ++v) {
      if (role(v) == fabric_role::none || v == d)
        continue;
      uint64_t best = inf;
      std::optional<node_id> want;
      for (auto [y, l] : out[v])
        if ((y == d || role(y) == fabric_role::forwarder) && dist[y] != inf &&
            (l + dist[y] < best || (l + dist[y] == best && y < *want))) {
          best = l + dist[y];
          want = y;
        }
      EXPECT_EQ(f.next_hop(v, d), want) << m.nodes[v].name << " -> " << m.nodes[d].name;
      ++checked;
      routed += want.has_value();
    }
  }
  // 32 destinations (per cube an HBM, an SRAM, 3 DMAs, 3 TCMs) from each of
  // the 39 other routers (the 32 and 8 forwarders); most pairs have a route
  // (not: into pe1's TCM from outside its PE, nor from a memory to a memory).
  EXPECT_EQ(checked, 32u * 39u);
  EXPECT_GT(routed, checked / 2);
}

} // namespace
} // namespace kb
