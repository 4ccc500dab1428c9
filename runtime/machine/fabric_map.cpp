#include "runtime/machine/fabric_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>

namespace kb {

namespace {

constexpr uint64_t unreachable = std::numeric_limits<uint64_t>::max();

std::string_view space_name(mem_space s) {
  switch (s) {
  case mem_space::hbm: return "hbm";
  case mem_space::sram: return "sram";
  case mem_space::tcm: return "tcm";
  }
  return "memory";
}

/// The address key (offset 0) of the memory `name` of `space`: its SIP and
/// cube, and for a TCM its PE, read from the dotted id
/// ("sip0.cube1.pe3.pe_tcm").
uint64_t memory_key(const std::string& name, mem_space space) {
  global_address a;
  a.space = space;
  unsigned sip = 0, cube = 0, pe = 0;
  const int got = std::sscanf(name.c_str(), "sip%u.cube%u.pe%u", &sip, &cube, &pe);
  const int need = space == mem_space::tcm ? 3 : 2;
  if (got < need || sip > 0xff || cube > 0xff || pe > 0xff)
    throw std::invalid_argument(fmt::format(
      "{}: a {} memory must be named {} (SIP, cube{} numbers up to 255)", name,
      space_name(space), space == mem_space::tcm ? "sipS.cubeC.peP.<name>" : "sipS.cubeC.<name>",
      space == mem_space::tcm ? " and PE" : ""));
  a.sip = sip;
  a.cube = cube;
  a.pe = space == mem_space::tcm ? pe : 0;
  return a.encode();
}

uint64_t key_of(uint64_t address) {
  global_address a = global_address::decode(address);
  a.offset = 0;
  if (a.space != mem_space::tcm)
    a.pe = 0;
  return a.encode();
}

} // namespace

fabric_map fabric_map::build(std::vector<fabric_node> nodes, std::vector<fabric_link> links) {
  fabric_map f;
  const size_t n = nodes.size();
  f.nodes_ = std::move(nodes);
  f.tables_.resize(n);

  struct edge {
    node_id other;
    uint64_t latency;
  };
  std::vector<std::vector<edge>> in(n), out(n);
  for (const auto& l : links) {
    if (l.src >= n || l.dst >= n)
      throw std::invalid_argument("fabric link to or from an unknown node");
    in[l.dst].push_back({l.src, l.latency_ps});
    out[l.src].push_back({l.dst, l.latency_ps});
  }
  for (auto& o : out) // ties go to the lowest next-hop id: scan in id order
    std::sort(o.begin(), o.end(), [](const edge& a, const edge& b) { return a.other < b.other; });

  std::vector<fabric_role> role(n);
  for (node_id v = 0; v < n; ++v)
    role[v] = f.nodes_[v].kind.role;
  std::vector<node_id> dests, routers; // routers: nodes that send fabric traffic
  f.is_dest_.assign(n, 0);
  std::vector<uint32_t> requester_index(n, no_node), memory_index(n, no_node);
  std::vector<node_id> requesters, memories;
  for (node_id v = 0; v < n; ++v) {
    const fabric_role r = role[v];
    if (r == fabric_role::requester || r == fabric_role::memory) {
      dests.push_back(v);
      f.is_dest_[v] = 1;
    }
    if (r == fabric_role::requester) {
      requester_index[v] = static_cast<uint32_t>(requesters.size());
      requesters.push_back(v);
    }
    if (r != fabric_role::none)
      routers.push_back(v);
    if (r == fabric_role::memory) {
      memory_index[v] = static_cast<uint32_t>(memories.size());
      memories.push_back(v);
      f.memories_.push_back({memory_key(f.nodes_[v].name, f.nodes_[v].kind.space), v});
    }
  }
  std::sort(f.memories_.begin(), f.memories_.end());
  for (size_t i = 1; i < f.memories_.size(); ++i)
    if (f.memories_[i].first == f.memories_[i - 1].first)
      throw std::invalid_argument(fmt::format(
        "{} and {} serve the same memory", f.nodes_[f.memories_[i - 1].second].name,
        f.nodes_[f.memories_[i].second].name));

  // The routers' out edges that a route may take (to a forwarder, or to a
  // destination as the last hop), packed in router order: the inner loop
  // below runs over every router for every destination, so it reads only
  // flat arrays (a machine of 1,024 PEs has some 2,000 of each).
  std::vector<uint32_t> edge_begin(routers.size() + 1, 0);
  std::vector<edge> edges;
  for (size_t i = 0; i < routers.size(); ++i) {
    for (const edge& e : out[routers[i]])
      if (role[e.other] == fabric_role::forwarder || f.is_dest_[e.other])
        edges.push_back(e);
    edge_begin[i + 1] = static_cast<uint32_t>(edges.size());
  }
  // Per router, the row being grown: destinations [first, last] all go to
  // `next`; it is closed (written to the table) when the next hop changes.
  std::vector<row> open(routers.size(), row{no_node, no_node, no_node});
  // Who reaches whom (bit r * memories + m): requester r memory m, and
  // memory m requester r, for the checks at the end.
  std::vector<bool> r_to_m(requesters.size() * memories.size());
  std::vector<bool> m_to_r(requesters.size() * memories.size());

  // One Dijkstra per destination over the reversed links; only the
  // destination and forwarders are expanded (they alone may be inner nodes).
  std::vector<uint64_t> dist(n, unreachable);
  std::vector<node_id> touched;
  using item = std::pair<uint64_t, node_id>;
  for (size_t di = 0; di < dests.size(); ++di) {
    const node_id d = dests[di];
    for (node_id v : touched)
      dist[v] = unreachable;
    touched.clear();
    std::priority_queue<item, std::vector<item>, std::greater<>> pq;
    dist[d] = 0;
    touched.push_back(d);
    pq.push({0, d});
    while (!pq.empty()) {
      const auto [du, u] = pq.top();
      pq.pop();
      if (du != dist[u])
        continue;
      if (u != d && role[u] != fabric_role::forwarder)
        continue;
      for (const edge& e : in[u]) {
        const uint64_t nd = du + e.latency;
        if (nd < dist[e.other]) {
          if (dist[e.other] == unreachable)
            touched.push_back(e.other);
          dist[e.other] = nd;
          if (role[e.other] == fabric_role::forwarder) // only they are expanded
            pq.push({nd, e.other});
        }
      }
    }
    const node_id prev = di == 0 ? no_node : dests[di - 1];
    for (size_t i = 0; i < routers.size(); ++i) {
      const node_id v = routers[i];
      if (v == d || dist[v] == unreachable)
        continue;
      uint64_t best = unreachable;
      node_id hop = no_node;
      for (uint32_t k = edge_begin[i]; k < edge_begin[i + 1]; ++k) {
        const edge& e = edges[k];
        if (e.other != d && role[e.other] != fabric_role::forwarder)
          continue;
        if (dist[e.other] == unreachable)
          continue;
        const uint64_t c = e.latency + dist[e.other];
        if (c < best) { // strict: the first (lowest id) of equals stays
          best = c;
          hop = e.other;
        }
      }
      if (hop == no_node)
        continue;
      row& o = open[i];
      if (o.first != no_node && o.next == hop && o.last == prev) {
        o.last = d; // the previous destination went the same way: one row
      } else {
        if (o.first != no_node)
          f.tables_[v].push_back(o);
        o = {d, d, hop};
      }
      if (requester_index[v] != no_node && memory_index[d] != no_node)
        r_to_m[requester_index[v] * memories.size() + memory_index[d]] = true;
      if (memory_index[v] != no_node && requester_index[d] != no_node)
        m_to_r[requester_index[d] * memories.size() + memory_index[v]] = true;
    }
  }
  for (size_t i = 0; i < routers.size(); ++i)
    if (open[i].first != no_node)
      f.tables_[routers[i]].push_back(open[i]);
  f.out_latency_.resize(n);
  for (node_id v = 0; v < n; ++v)
    for (const edge& e : out[v])
      f.out_latency_[v].push_back({e.other, e.latency});

  // Every requester must reach every HBM and SRAM, and every memory every
  // requester (its replies); a TCM of another PE only if linked.
  for (size_t r = 0; r < requesters.size(); ++r)
    for (size_t m = 0; m < memories.size(); ++m) {
      const bool there = r_to_m[r * memories.size() + m];
      if (f.nodes_[memories[m]].kind.space != mem_space::tcm && !there)
        throw std::invalid_argument(no_route_message(f, requesters[r], memories[m]));
      if (there && !m_to_r[r * memories.size() + m])
        throw std::invalid_argument(no_route_message(f, memories[m], requesters[r]));
    }
  return f;
}

std::optional<node_id> fabric_map::memory_of(uint64_t address) const {
  const uint64_t k = key_of(address);
  auto it = std::lower_bound(memories_.begin(), memories_.end(), std::make_pair(k, node_id{0}));
  if (it == memories_.end() || it->first != k)
    return std::nullopt;
  return it->second;
}

std::optional<node_id> fabric_map::next_hop(node_id from, node_id to) const {
  if (from >= tables_.size() || to >= is_dest_.size() || !is_dest_[to])
    return std::nullopt;
  const auto& t = tables_[from];
  auto it = std::upper_bound(t.begin(), t.end(), to,
                             [](node_id v, const row& r) { return v < r.first; });
  if (it == t.begin())
    return std::nullopt;
  --it;
  if (to > it->last)
    return std::nullopt;
  return it->next;
}

std::optional<uint64_t> fabric_map::route_latency_ps(node_id from, node_id to) const {
  uint64_t total = 0;
  node_id at = from;
  for (size_t steps = 0; at != to; ++steps) {
    const auto hop = next_hop(at, to);
    if (!hop || steps > nodes_.size())
      return std::nullopt;
    const auto& o = out_latency_[at];
    auto it = std::find_if(o.begin(), o.end(), [&](const auto& e) { return e.first == *hop; });
    total += it->second;
    at = *hop;
  }
  return total;
}

std::string no_route_message(const fabric_map& f, node_id from, node_id to) {
  return fmt::format(
    "no route from {} to {}: a route runs over links whose inner nodes are forwarders "
    "(xbar, noc); join the NOCs of a SIP's cubes by UCIe links (sip: links:) and the "
    "SIPs by inter-SIP links (system: links:), see config/scale/",
    f.name(from), f.name(to));
}

} // namespace kb
