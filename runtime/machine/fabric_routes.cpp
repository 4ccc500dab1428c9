#include "runtime/machine/fabric_routes.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <queue>

namespace kb::detail {

namespace {

constexpr uint64_t unreachable = std::numeric_limits<uint64_t>::max();
constexpr uint32_t none = fabric_routes::none;

using link_list = std::vector<std::pair<node_id, uint64_t>>;

/// Numbers distinct link lists in the order they are first seen.
class numbering {
public:
  uint32_t of(link_list key) {
    std::sort(key.begin(), key.end());
    auto [it, fresh] = ids_.emplace(std::move(key), static_cast<uint32_t>(keys_.size()));
    if (fresh)
      keys_.push_back(&it->first); // map nodes stay where they are
    return it->second;
  }
  size_t size() const { return keys_.size(); }
  const link_list& operator[](uint32_t i) const { return *keys_[i]; }

private:
  std::map<link_list, uint32_t> ids_;
  std::vector<const link_list*> keys_;
};

/// Destinations number a..b (inclusive, in id order) go to `hop`.
struct run {
  uint32_t a, b;
  node_id hop;
};

/// Appends a run, merged into the last one when it continues it.
void add(std::vector<run>& out, uint32_t a, uint32_t b, node_id hop) {
  if (hop == no_node)
    return;
  if (!out.empty() && out.back().hop == hop && out.back().b + 1 == a)
    out.back().b = b;
  else
    out.push_back({a, b, hop});
}

/// The destinations in id order as segments (runs of one group) under a
/// binary tree whose nodes list the groups below them (sorted): a source
/// class with one hop for every group of a tree node lays the node out as
/// one run without visiting its segments (a cube's DMAs and TCMs alternate
/// in id order, but seen from another cube they all go one way).
class segment_tree {
public:
  explicit segment_tree(const std::vector<uint32_t>& group_of_dest) {
    for (uint32_t di = 0; di < group_of_dest.size(); ++di) {
      if (!segments_.empty() && segments_.back().group == group_of_dest[di])
        segments_.back().b = di;
      else
        segments_.push_back({di, di, group_of_dest[di]});
    }
    if (!segments_.empty()) {
      nodes_.reserve(2 * segments_.size());
      build(0, static_cast<uint32_t>(segments_.size()));
    }
  }

  /// The runs of a class whose hop to group g is hop[g] (no_node: none).
  void lay_out(const std::vector<node_id>& hop, std::vector<run>& out, uint64_t& steps) const {
    if (!nodes_.empty())
      walk(static_cast<uint32_t>(nodes_.size() - 1), hop, out, steps); // the root is built last
  }

private:
  struct segment {
    uint32_t a, b, group;
  };
  struct tree_node {
    uint32_t lo, hi;         ///< segments [lo, hi)
    uint32_t left, right;    ///< children (none for a segment)
    uint32_t g_begin, g_end; ///< its groups in groups_
  };

  uint32_t build(uint32_t lo, uint32_t hi) {
    tree_node n{lo, hi, none, none, 0, 0};
    merged_.clear();
    if (hi - lo == 1) {
      merged_.push_back(segments_[lo].group);
    } else {
      const uint32_t mid = lo + (hi - lo) / 2;
      n.left = build(lo, mid);
      n.right = build(mid, hi);
      const tree_node& l = nodes_[n.left];
      const tree_node& r = nodes_[n.right];
      merged_.clear();
      std::set_union(groups_.begin() + l.g_begin, groups_.begin() + l.g_end,
                     groups_.begin() + r.g_begin, groups_.begin() + r.g_end,
                     std::back_inserter(merged_));
    }
    n.g_begin = static_cast<uint32_t>(groups_.size());
    groups_.insert(groups_.end(), merged_.begin(), merged_.end());
    n.g_end = static_cast<uint32_t>(groups_.size());
    nodes_.push_back(n);
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  void walk(uint32_t t, const std::vector<node_id>& hop, std::vector<run>& out,
            uint64_t& steps) const {
    const tree_node& n = nodes_[t];
    const node_id h = hop[groups_[n.g_begin]];
    uint32_t k = n.g_begin + 1;
    while (k < n.g_end && hop[groups_[k]] == h)
      ++k;
    steps += k - n.g_begin;
    if (k == n.g_end) {
      add(out, segments_[n.lo].a, segments_[n.hi - 1].b, h);
      return;
    }
    walk(n.left, hop, out, steps);
    walk(n.right, hop, out, steps);
  }

  std::vector<segment> segments_;
  std::vector<tree_node> nodes_;
  std::vector<uint32_t> groups_;
  std::vector<uint32_t> merged_; ///< scratch of build()
};

} // namespace

fabric_routes compute_routes(const std::vector<fabric_node>& nodes,
                             const std::vector<link_list>& out, const std::vector<char>& here) {
  fabric_routes routes;
  const size_t n = nodes.size();
  routes.tables.resize(n);
  uint64_t& steps = routes.work.steps;
  auto role = [&](node_id v) { return nodes[v].kind.role; };

  // -- the destinations, forwarders, groups and source classes ---------------
  std::vector<node_id> dests, fwds;
  std::vector<uint32_t> dest_index(n, none), fwd_index(n, none);
  for (node_id v = 0; v < n; ++v) {
    if (role(v) == fabric_role::requester || role(v) == fabric_role::memory) {
      dest_index[v] = static_cast<uint32_t>(dests.size());
      dests.push_back(v);
    }
    if (role(v) == fabric_role::forwarder) {
      fwd_index[v] = static_cast<uint32_t>(fwds.size());
      fwds.push_back(v);
    }
  }
  // A destination's links from forwarders make its group; the links between
  // forwarders, reversed, are what the Dijkstra below runs over.
  std::vector<link_list> from_fwds(dests.size());
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> into_fwd(fwds.size());
  for (node_id f : fwds)
    for (const auto& [o, l] : out[f]) {
      if (dest_index[o] != none)
        from_fwds[dest_index[o]].emplace_back(f, l);
      else if (fwd_index[o] != none)
        into_fwd[fwd_index[o]].emplace_back(fwd_index[f], l);
      ++steps;
    }
  numbering groups, classes;
  routes.group_of.assign(n, none);
  std::vector<uint32_t> group_of_dest(dests.size());
  for (uint32_t di = 0; di < dests.size(); ++di) {
    group_of_dest[di] = groups.of(std::move(from_fwds[di]));
    routes.group_of[dests[di]] = group_of_dest[di];
  }
  routes.groups = groups.size();
  // A router's (node with a fabric role) links to forwarders make its class.
  routes.source_of.assign(n, none);
  for (node_id v = 0; v < n; ++v) {
    if (role(v) == fabric_role::none)
      continue;
    link_list key;
    for (const auto& [o, l] : out[v])
      if (fwd_index[o] != none)
        key.emplace_back(o, l);
    steps += out[v].size();
    routes.source_of[v] = classes.of(std::move(key));
  }

  // -- per group, each forwarder's distance to its members -------------------
  // (over forwarders only, to the last forwarder's link into the member)
  const size_t nf = fwds.size(), ng = groups.size();
  std::vector<uint64_t> dist(ng * nf, unreachable);
  using item = std::pair<uint64_t, uint32_t>;
  for (uint32_t g = 0; g < ng; ++g) {
    uint64_t* d = dist.data() + g * nf;
    std::priority_queue<item, std::vector<item>, std::greater<>> pq;
    for (const auto& [f, l] : groups[g]) {
      const uint32_t x = fwd_index[f];
      if (l < d[x]) {
        d[x] = l;
        pq.push({l, x});
      }
    }
    while (!pq.empty()) {
      const auto [du, u] = pq.top();
      pq.pop();
      ++steps;
      if (du != d[u])
        continue;
      for (const auto& [x, l] : into_fwd[u]) {
        ++steps;
        if (du + l < d[x]) {
          d[x] = du + l;
          pq.push({d[x], x});
        }
      }
    }
    ++routes.work.searches;
  }

  // -- per source class, its hops laid out as runs; per router, its table ----
  const size_t nc = classes.size();
  std::vector<uint32_t> member_begin(nc + 1, 0), members;
  for (node_id v = 0; v < n; ++v)
    if (routes.source_of[v] != none)
      ++member_begin[routes.source_of[v] + 1];
  for (size_t c = 0; c < nc; ++c)
    member_begin[c + 1] += member_begin[c];
  members.resize(member_begin[nc]);
  {
    std::vector<uint32_t> at(member_begin.begin(), member_begin.end() - 1);
    for (node_id v = 0; v < n; ++v)
      if (routes.source_of[v] != none)
        members[at[routes.source_of[v]]++] = v;
  }
  const segment_tree tree(group_of_dest);
  routes.reach.assign(nc * ng, 0);
  const bool part = !here.empty();
  if (part) {
    routes.class_hop.assign(nc * ng, no_node);
    for (node_id v = 0; v < n; ++v)
      if (routes.source_of[v] != none)
        for (const auto& [o, l] : out[v])
          if (dest_index[o] != none)
            routes.class_cost.push_back(
              {uint64_t{routes.source_of[v]} * ng + group_of_dest[dest_index[o]], unreachable});
    std::sort(routes.class_cost.begin(), routes.class_cost.end());
    routes.class_cost.erase(std::unique(routes.class_cost.begin(), routes.class_cost.end()),
                            routes.class_cost.end());
  }
  auto next_cost = routes.class_cost.begin();
  auto built_here = [&](node_id v) { return !part || here[v] != 0; };
  std::vector<node_id> hop(ng);
  std::vector<uint64_t> cost(ng);
  std::vector<run> base, mine;
  struct direct {
    uint32_t di;
    uint64_t latency; ///< of the link straight to it (unreachable: none, or v itself)
  };
  std::vector<direct> odd;
  for (uint32_t c = 0; c < nc; ++c) {
    // The best link to a forwarder, per group: lowest latency plus the
    // forwarder's distance, ties to the lowest id (the key is in id order).
    const link_list& key = classes[c];
    for (uint32_t g = 0; g < ng; ++g) {
      uint64_t best = unreachable;
      node_id h = no_node;
      for (const auto& [w, l] : key) {
        const uint64_t rest = dist[g * nf + fwd_index[w]];
        if (rest != unreachable && l + rest < best) {
          best = l + rest;
          h = w;
        }
      }
      steps += key.size() + 1;
      hop[g] = h;
      cost[g] = best;
      routes.reach[c * ng + g] = h != no_node;
    }
    if (part) {
      std::copy(hop.begin(), hop.end(), routes.class_hop.begin() + c * ng);
      for (; next_cost != routes.class_cost.end() && next_cost->first < (c + 1) * uint64_t{ng};
           ++next_cost)
        next_cost->second = cost[next_cost->first - c * uint64_t{ng}];
    }
    if (std::none_of(members.begin() + member_begin[c], members.begin() + member_begin[c + 1],
                     built_here))
      continue;
    base.clear();
    tree.lay_out(hop, base, steps);
    for (uint32_t k = member_begin[c]; k < member_begin[c + 1]; ++k) {
      const node_id v = members[k];
      if (!built_here(v))
        continue;
      // The destinations where v differs from its class: itself, and those
      // it links to. Of parallel links to one, a router with links to
      // forwarders that is no forwarder takes the fastest, any other the
      // first (as the per-destination build did).
      const bool fastest = role(v) != fabric_role::forwarder && !key.empty();
      odd.clear();
      for (const auto& [o, l] : out[v])
        if (dest_index[o] != none)
          odd.push_back({dest_index[o], l});
      if (dest_index[v] != none)
        odd.push_back({dest_index[v], unreachable});
      std::stable_sort(odd.begin(), odd.end(),
                       [](const direct& a, const direct& b) { return a.di < b.di; });
      size_t kept = 0;
      for (size_t i = 0; i < odd.size(); ++i) {
        if (kept && odd[kept - 1].di == odd[i].di) {
          if (fastest)
            odd[kept - 1].latency = std::min(odd[kept - 1].latency, odd[i].latency);
          continue;
        }
        odd[kept++] = odd[i];
      }
      odd.resize(kept);
      auto exact = [&](const direct& o) {
        const node_id d = dests[o.di];
        if (d == v)
          return no_node;
        const uint32_t g = group_of_dest[o.di];
        if (o.latency < cost[g] || (o.latency == cost[g] && d < hop[g]))
          return d;
        return hop[g];
      };
      // The class's runs with the odd destinations patched in.
      mine.clear();
      size_t x = 0;
      for (const run& r : base) {
        for (; x < odd.size() && odd[x].di < r.a; ++x)
          add(mine, odd[x].di, odd[x].di, exact(odd[x]));
        uint32_t start = r.a;
        for (; x < odd.size() && odd[x].di <= r.b; ++x) {
          if (odd[x].di > start)
            add(mine, start, odd[x].di - 1, r.hop);
          add(mine, odd[x].di, odd[x].di, exact(odd[x]));
          start = odd[x].di + 1;
        }
        if (start <= r.b)
          add(mine, start, r.b, r.hop);
      }
      for (; x < odd.size(); ++x)
        add(mine, odd[x].di, odd[x].di, exact(odd[x]));
      steps += base.size() + odd.size() + 1;
      auto& t = routes.tables[v];
      t.reserve(mine.size());
      for (const run& r : mine)
        t.push_back({dests[r.a], dests[r.b], r.hop});
    }
  }
  return routes;
}

} // namespace kb::detail
