#include "runtime/machine/fabric_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
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
  std::vector<node_id> requesters, memories; // in id order
  for (node_id v = 0; v < n; ++v) {
    const fabric_role r = role[v];
    if (r == fabric_role::requester || r == fabric_role::memory) {
      dests.push_back(v);
      f.is_dest_[v] = 1;
    }
    if (r == fabric_role::requester)
      requesters.push_back(v);
    if (r != fabric_role::none)
      routers.push_back(v);
    if (r == fabric_role::memory) {
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
  // A leaf: a router that is no forwarder (a PE's DMA or TCM, an HBM) and
  // has links to forwarders. Leaves with the same forwarder links (node and
  // latency: the 64 DMAs of a cube) route alike to every destination they
  // have no direct link to, so each such group is routed once, from its
  // forwarders' distances, after the loop below; a leaf then only patches
  // itself and its directly linked destinations in. (A machine of 1,024 PEs
  // has some 2,000 leaves and 64 groups.)
  std::vector<uint32_t> group_of(routers.size(), no_node);
  std::vector<std::vector<edge>> groups; // per group: its forwarder links
  std::vector<uint32_t> fwd_index(n, no_node); // forwarder -> row of fwd_dist
  std::vector<node_id> fwds;
  {
    std::map<std::vector<std::pair<node_id, uint64_t>>, uint32_t> known;
    for (size_t i = 0; i < routers.size(); ++i) {
      if (role[routers[i]] == fabric_role::forwarder)
        continue;
      std::vector<std::pair<node_id, uint64_t>> key;
      std::vector<edge> links;
      for (uint32_t k = edge_begin[i]; k < edge_begin[i + 1]; ++k)
        if (role[edges[k].other] == fabric_role::forwarder) {
          key.emplace_back(edges[k].other, edges[k].latency);
          links.push_back(edges[k]);
          if (fwd_index[edges[k].other] == no_node) {
            fwd_index[edges[k].other] = static_cast<uint32_t>(fwds.size());
            fwds.push_back(edges[k].other);
          }
        }
      if (key.empty())
        continue;
      auto [it, fresh] = known.emplace(std::move(key), static_cast<uint32_t>(groups.size()));
      if (fresh)
        groups.push_back(std::move(links));
      group_of[i] = it->second;
    }
  }
  // The leaves by node id (the Dijkstra below neither relaxes nor routes
  // them), and the routers it routes (forwarders and leafless others).
  std::vector<char> is_leaf(n, 0);
  std::vector<uint32_t> core;
  for (size_t i = 0; i < routers.size(); ++i) {
    if (group_of[i] != no_node)
      is_leaf[routers[i]] = 1;
    else
      core.push_back(static_cast<uint32_t>(i));
  }
  // A routed router's links: to forwarders, and (sorted by id) directly to
  // destinations, which only matter when routing to that one.
  std::vector<uint32_t> fwd_begin(routers.size() + 1, 0), direct_begin(routers.size() + 1, 0);
  std::vector<edge> fwd_edges, direct_edges;
  for (size_t i = 0; i < routers.size(); ++i) {
    for (uint32_t k = edge_begin[i]; k < edge_begin[i + 1]; ++k)
      (role[edges[k].other] == fabric_role::forwarder ? fwd_edges : direct_edges)
        .push_back(edges[k]);
    fwd_begin[i + 1] = static_cast<uint32_t>(fwd_edges.size());
    direct_begin[i + 1] = static_cast<uint32_t>(direct_edges.size());
  }
  // What the Dijkstra relaxes: forwarders (it expands them) and the routers
  // it routes; not leaves, nor nodes off the fabric (a PE's CPU on its NOC).
  std::vector<std::vector<edge>> in_relaxed(n);
  for (node_id u = 0; u < n; ++u)
    for (const edge& e : in[u])
      if (role[e.other] == fabric_role::forwarder ||
          (role[e.other] != fabric_role::none && !is_leaf[e.other]))
        in_relaxed[u].push_back(e);
  // Per forwarder next to a leaf, its distance to destination number di.
  std::vector<std::vector<uint64_t>> fwd_dist(fwds.size(),
                                              std::vector<uint64_t>(dests.size(), unreachable));
  // Per router, the row being grown: destinations [first, last] all go to
  // `next`; it is closed (written to the table) when the next hop changes.
  std::vector<row> open(routers.size(), row{no_node, no_node, no_node});

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
      for (const edge& e : in_relaxed[u]) {
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
    for (size_t x = 0; x < fwds.size(); ++x)
      fwd_dist[x][di] = dist[fwds[x]];
    for (uint32_t i : core) {
      const node_id v = routers[i];
      if (v == d || dist[v] == unreachable)
        continue;
      uint64_t best = unreachable;
      node_id hop = no_node;
      for (uint32_t k = fwd_begin[i]; k < fwd_begin[i + 1]; ++k) {
        const edge& e = fwd_edges[k];
        if (dist[e.other] == unreachable)
          continue;
        const uint64_t c = e.latency + dist[e.other];
        if (c < best) { // strict: the first (lowest id) of equals stays
          best = c;
          hop = e.other;
        }
      }
      const auto first = direct_edges.begin() + direct_begin[i];
      const auto last = direct_edges.begin() + direct_begin[i + 1];
      const auto it = std::lower_bound(first, last, d,
                                       [](const edge& e, node_id x) { return e.other < x; });
      if (it != last && it->other == d && (it->latency < best || (it->latency == best && d < hop))) {
        best = it->latency;
        hop = d;
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
    }
  }
  for (size_t i = 0; i < routers.size(); ++i)
    if (open[i].first != no_node)
      f.tables_[routers[i]].push_back(open[i]);
  // The leaves, as the loop above would route them: to destination d the
  // best link of the leaf's (d itself, or a forwarder plus its distance to
  // d; ties to the lower id), rows merged over consecutive destinations.
  std::vector<uint32_t> dest_index(n, no_node);
  for (size_t di = 0; di < dests.size(); ++di)
    dest_index[dests[di]] = static_cast<uint32_t>(di);
  /// The next hop over `links` (in id order) to destination number di.
  auto best_hop = [&](const edge* first, const edge* last, size_t di) {
    uint64_t best = unreachable;
    node_id hop = no_node;
    for (const edge* e = first; e != last; ++e) {
      const uint64_t rest = e->other == dests[di] ? 0
                            : role[e->other] == fabric_role::forwarder
                              ? fwd_dist[fwd_index[e->other]][di]
                              : unreachable;
      if (rest != unreachable && e->latency + rest < best) {
        best = e->latency + rest;
        hop = e->other;
      }
    }
    return hop;
  };
  auto leaf_hop = [&](size_t i, size_t di) {
    if (routers[i] == dests[di])
      return no_node;
    return best_hop(edges.data() + edge_begin[i], edges.data() + edge_begin[i + 1], di);
  };
  struct run {
    uint32_t a, b; // destination numbers, inclusive
    node_id hop;
  };
  auto add = [](std::vector<run>& out, uint32_t a, uint32_t b, node_id hop) {
    if (hop == no_node)
      return;
    if (!out.empty() && out.back().hop == hop && out.back().b + 1 == a)
      out.back().b = b;
    else
      out.push_back({a, b, hop});
  };
  std::vector<std::vector<run>> group_runs(groups.size());
  for (size_t g = 0; g < groups.size(); ++g)
    for (uint32_t di = 0; di < dests.size(); ++di)
      add(group_runs[g], di, di,
          best_hop(groups[g].data(), groups[g].data() + groups[g].size(), di));
  std::vector<run> mine;
  std::vector<uint32_t> odd; // destinations where a leaf differs from its group
  for (size_t i = 0; i < routers.size(); ++i) {
    if (group_of[i] == no_node)
      continue;
    odd.clear();
    if (dest_index[routers[i]] != no_node)
      odd.push_back(dest_index[routers[i]]);
    for (uint32_t k = edge_begin[i]; k < edge_begin[i + 1]; ++k)
      if (dest_index[edges[k].other] != no_node)
        odd.push_back(dest_index[edges[k].other]);
    std::sort(odd.begin(), odd.end());
    odd.erase(std::unique(odd.begin(), odd.end()), odd.end());
    mine.clear();
    size_t x = 0;
    for (const run& r : group_runs[group_of[i]]) {
      for (; x < odd.size() && odd[x] < r.a; ++x)
        add(mine, odd[x], odd[x], leaf_hop(i, odd[x]));
      uint32_t start = r.a;
      for (; x < odd.size() && odd[x] <= r.b; ++x) {
        if (odd[x] > start)
          add(mine, start, odd[x] - 1, r.hop);
        add(mine, odd[x], odd[x], leaf_hop(i, odd[x]));
        start = odd[x] + 1;
      }
      if (start <= r.b)
        add(mine, start, r.b, r.hop);
    }
    for (; x < odd.size(); ++x)
      add(mine, odd[x], odd[x], leaf_hop(i, odd[x]));
    auto& t = f.tables_[routers[i]];
    for (const run& r : mine)
      t.push_back({dests[r.a], dests[r.b], r.hop});
  }
  f.out_latency_.resize(n);
  for (node_id v = 0; v < n; ++v)
    for (const edge& e : out[v])
      f.out_latency_[v].push_back({e.other, e.latency});

  // A requester linked to a translator that reaches a memory sends every
  // request through it (two such translators: which one is ambiguous).
  f.via_.assign(n, no_node);
  for (node_id rq : requesters)
    for (const edge& e : out[rq])
      if (role[e.other] == fabric_role::translator && f.reaches_any(e.other, memories)) {
        if (f.via_[rq] != no_node)
          throw std::invalid_argument(fmt::format(
            "{} links to two translators with routes, {} and {}: its requests must go "
            "through one",
            f.nodes_[rq].name, f.nodes_[f.via_[rq]].name, f.nodes_[e.other].name));
        f.via_[rq] = e.other;
      }
  f.check_routes(requesters, memories);
  return f;
}

void fabric_map::mark_reachable(node_id from, const std::vector<node_id>& targets,
                                std::vector<char>& out) const {
  out.assign(targets.size(), 0);
  for (const row& r : tables_[from]) {
    auto a = std::lower_bound(targets.begin(), targets.end(), r.first);
    const auto b = std::upper_bound(a, targets.end(), r.last);
    for (; a != b; ++a)
      out[static_cast<size_t>(a - targets.begin())] = 1;
  }
}

bool fabric_map::reaches_any(node_id from, const std::vector<node_id>& targets) const {
  return std::any_of(tables_[from].begin(), tables_[from].end(), [&](const row& r) {
    auto a = std::lower_bound(targets.begin(), targets.end(), r.first);
    return a != targets.end() && *a <= r.last;
  });
}

void fabric_map::check_routes(const std::vector<node_id>& requesters,
                              const std::vector<node_id>& memories) const {
  // Who each memory answers (row m: requester r), then per requester whom
  // it reaches; both read the finished tables a range of ids at a time.
  const size_t nr = requesters.size();
  std::vector<char> back(memories.size() * nr), mark;
  for (size_t m = 0; m < memories.size(); ++m) {
    mark_reachable(memories[m], requesters, mark);
    std::copy(mark.begin(), mark.end(), back.begin() + static_cast<std::ptrdiff_t>(m * nr));
  }
  for (size_t r = 0; r < nr; ++r) {
    const node_id rq = requesters[r];
    const node_id from = via_[rq] != no_node ? via_[rq] : rq;
    mark_reachable(from, memories, mark);
    for (size_t m = 0; m < memories.size(); ++m) {
      const node_id mem = memories[m];
      if (nodes_[mem].kind.space != mem_space::tcm && !mark[m])
        throw std::invalid_argument(no_route_message(*this, from, mem));
      if (mark[m] && !back[m * nr + r])
        throw std::invalid_argument(no_route_message(*this, mem, rq));
    }
  }
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
