#include "runtime/machine/fabric_map.hpp"

#include "runtime/machine/fabric_routes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>

namespace kb {

namespace {

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

fabric_map fabric_map::build(std::vector<fabric_node> nodes, std::vector<fabric_link> links,
                             std::vector<char> here) {
  fabric_map f;
  const size_t n = nodes.size();
  if (!here.empty() && here.size() != n)
    throw std::logic_error("fabric_map: a part's flags must cover every node");
  f.nodes_ = std::move(nodes);

  f.out_latency_.resize(n);
  {
    std::vector<uint32_t> degree(n, 0);
    for (const auto& l : links) {
      if (l.src >= n || l.dst >= n)
        throw std::invalid_argument("fabric link to or from an unknown node");
      ++degree[l.src];
    }
    for (node_id v = 0; v < n; ++v)
      f.out_latency_[v].reserve(degree[v]);
  }
  for (const auto& l : links)
    f.out_latency_[l.src].push_back({l.dst, l.latency_ps});
  for (auto& o : f.out_latency_) // ties go to the lowest next-hop id: scan in id order
    std::sort(o.begin(), o.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  f.is_dest_.assign(n, 0);
  std::vector<node_id> requesters, memories; // in id order
  for (node_id v = 0; v < n; ++v) {
    const fabric_role r = f.nodes_[v].kind.role;
    if (r == fabric_role::requester || r == fabric_role::memory)
      f.is_dest_[v] = 1;
    if (r == fabric_role::requester)
      requesters.push_back(v);
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

  detail::fabric_routes routes = detail::compute_routes(f.nodes_, f.out_latency_, here);
  f.tables_ = std::move(routes.tables);
  f.work_ = routes.work;
  if (!here.empty()) {
    f.source_of_ = routes.source_of;
    f.group_of_ = routes.group_of;
    f.groups_ = routes.groups;
    f.class_hop_ = std::move(routes.class_hop);
    f.class_cost_ = std::move(routes.class_cost);
  }

  // A requester linked to a translator that reaches a memory sends every
  // request through it (two such translators: which one is ambiguous). A
  // node's table reaches a memory when its source class reaches the
  // memory's group or it links to the memory (fabric_routes.hpp): asked of
  // the classes, once each, not of the tables a part lacks.
  constexpr uint32_t none = detail::fabric_routes::none;
  std::vector<char> memory_group(routes.groups, 0);
  for (node_id m : memories)
    memory_group[routes.group_of[m]] = 1;
  std::vector<int8_t> class_reaches(routes.reach.size() / std::max<size_t>(1, routes.groups), -1);
  auto reaches_a_memory = [&](node_id v) {
    for (const auto& [o, l] : f.out_latency_[v])
      if (f.nodes_[o].kind.role == fabric_role::memory)
        return true;
    const uint32_t c = routes.source_of[v];
    if (c == none)
      return false;
    if (class_reaches[c] < 0) {
      class_reaches[c] = 0;
      for (uint32_t g = 0; g < routes.groups && !class_reaches[c]; ++g)
        class_reaches[c] = memory_group[g] && routes.reaches(c, g) ? 1 : 0;
      f.work_.steps += routes.groups;
    }
    return class_reaches[c] == 1;
  };
  f.via_.assign(n, no_node);
  for (node_id rq : requesters)
    for (const auto& [o, l] : f.out_latency_[rq])
      if (f.nodes_[o].kind.role == fabric_role::translator && reaches_a_memory(o)) {
        if (f.via_[rq] != no_node)
          throw std::invalid_argument(fmt::format(
            "{} links to two translators with routes, {} and {}: its requests must go "
            "through one",
            f.nodes_[rq].name, f.nodes_[f.via_[rq]].name, f.nodes_[o].name));
        f.via_[rq] = o;
      }
  f.check_routes(requesters, memories, routes);
  return f;
}

std::optional<node_id> fabric_map::class_next_hop(node_id from, node_id to) const {
  const uint32_t c = source_of_[from];
  if (from == to || c == detail::fabric_routes::none)
    return std::nullopt;
  const uint64_t at = uint64_t{c} * groups_ + group_of_[to];
  const node_id hop = class_hop_[at];
  // Links straight to `to` (out links are sorted by target): of parallel
  // ones, a router with links to forwarders that is no forwarder takes the
  // fastest, any other the first, as the tables do.
  const auto& o = out_latency_[from];
  auto it = std::lower_bound(o.begin(), o.end(), to,
                             [](const auto& e, node_id v) { return e.first < v; });
  if (it != o.end() && it->first == to) {
    const bool fastest =
      nodes_[from].kind.role != fabric_role::forwarder &&
      std::any_of(o.begin(), o.end(),
                  [&](const auto& e) { return nodes_[e.first].kind.role == fabric_role::forwarder; });
    uint64_t latency = it->second;
    for (; fastest && it != o.end() && it->first == to; ++it)
      latency = std::min(latency, it->second);
    // The class's route latency (a member links to this group: it is kept).
    const auto k = std::lower_bound(class_cost_.begin(), class_cost_.end(),
                                    std::make_pair(at, uint64_t{0}));
    if (k == class_cost_.end() || k->first != at)
      throw std::logic_error("fabric_map: a class's route latency was not kept");
    const uint64_t cost = k->second;
    if (latency < cost || (latency == cost && to < hop))
      return to;
  }
  if (hop == no_node)
    return std::nullopt;
  return hop;
}

void fabric_map::check_routes(const std::vector<node_id>& requesters,
                              const std::vector<node_id>& memories,
                              const detail::fabric_routes& routes) {
  // Between a sender and a receiver not linked to each other, a route
  // exists exactly when the sender's source class reaches the receiver's
  // group (fabric_routes.hpp). So the memories are taken a class at a time
  // (group, source class, TCM or not), and a requester meets, besides the
  // memory classes that fail for its class (its sender's source class, its
  // group), only the memories linked to it or its sender, one by one.
  constexpr uint32_t none = detail::fabric_routes::none;
  const size_t n = nodes_.size();
  std::vector<uint32_t> mem_index(n, none);
  std::map<std::tuple<uint32_t, uint32_t, bool>, uint32_t> class_ids;
  struct mem_class {
    uint32_t group, source;
    bool tcm;
    std::vector<uint32_t> members; // memory numbers, ascending
  };
  std::vector<mem_class> classes;
  std::vector<std::pair<node_id, uint32_t>> links_in; // (requester, memory linking to it)
  for (uint32_t m = 0; m < memories.size(); ++m) {
    const node_id mem = memories[m];
    mem_index[mem] = m;
    const bool tcm = nodes_[mem].kind.space == mem_space::tcm;
    const auto key = std::make_tuple(routes.group_of[mem], routes.source_of[mem], tcm);
    auto [it, fresh] = class_ids.emplace(key, static_cast<uint32_t>(classes.size()));
    if (fresh)
      classes.push_back({routes.group_of[mem], routes.source_of[mem], tcm, {}});
    classes[it->second].members.push_back(m);
    for (const auto& [o, l] : out_latency_[mem])
      if (nodes_[o].kind.role == fabric_role::requester)
        links_in.emplace_back(o, m);
    work_.steps += out_latency_[mem].size() + 1;
  }
  std::sort(links_in.begin(), links_in.end());
  auto reaches = [&](node_id from, node_id to) { return next_hop(from, to).has_value(); };
  // A memory fails a requester when it must be reached and is not, or is
  // reached and has no way back.
  auto fails = [&](node_id from, node_id rq, uint32_t m) {
    const node_id mem = memories[m];
    const bool there = reaches(from, mem);
    return (!there && nodes_[mem].kind.space != mem_space::tcm) || (there && !reaches(mem, rq));
  };
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> failing; // per requester class
  std::vector<uint32_t> linked;
  for (const node_id rq : requesters) {
    const node_id from = via_[rq] != no_node ? via_[rq] : rq;
    const uint32_t sender = routes.source_of[from], group = routes.group_of[rq];
    auto [it, fresh] = failing.emplace(std::make_pair(sender, group), std::vector<uint32_t>{});
    if (fresh) {
      for (uint32_t c = 0; c < classes.size(); ++c) {
        const mem_class& mc = classes[c];
        const bool there = routes.reaches(sender, mc.group);
        if ((!there && !mc.tcm) || (there && !routes.reaches(mc.source, group)))
          it->second.push_back(c);
      }
      work_.steps += classes.size();
    }
    linked.clear();
    for (auto at = std::lower_bound(links_in.begin(), links_in.end(), std::make_pair(rq, 0u));
         at != links_in.end() && at->first == rq; ++at)
      linked.push_back(at->second);
    for (const auto& [o, l] : out_latency_[from])
      if (mem_index[o] != none)
        linked.push_back(mem_index[o]);
    std::sort(linked.begin(), linked.end());
    linked.erase(std::unique(linked.begin(), linked.end()), linked.end());
    uint32_t first = none;
    for (uint32_t c : it->second) // a member linked to neither end fails as its class
      for (uint32_t m : classes[c].members) {
        ++work_.steps;
        if (!std::binary_search(linked.begin(), linked.end(), m)) {
          first = std::min(first, m);
          break;
        }
      }
    for (uint32_t m : linked)
      if (m < first && fails(from, rq, m))
        first = m;
    work_.steps += it->second.size() + linked.size() + out_latency_[from].size() + 1;
    if (first == none)
      continue;
    const node_id mem = memories[first];
    if (!reaches(from, mem))
      throw std::invalid_argument(no_route_message(*this, from, mem));
    throw std::invalid_argument(no_route_message(*this, mem, rq));
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
  if (t.empty() && !class_hop_.empty())
    return class_next_hop(from, to);
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
