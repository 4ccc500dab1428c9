// How a simulation is described before it runs: its nodes (by name, or by
// id and place alone for a split run's other processes' nodes), links,
// link classes, partition, grouping and recorders, and the checks of that
// description (simulation.hpp). The run itself is simulation.cpp.

#include "runtime/engine/simulation.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <unordered_map>

namespace kb {

void simulation::add_node(std::string name, node_factory f, node_place place,
                          std::vector<std::string> ports) {
  if (name.empty())
    throw std::invalid_argument("node name must not be empty");
  // A machine's nodes come sorted: each goes at the end, without a search.
  if (nodes_.empty() || nodes_.rbegin()->first < name) {
    nodes_.emplace_hint(nodes_.end(), std::move(name),
                        node_entry{std::move(f), place, std::move(ports)});
    return;
  }
  if (!elsewhere_.empty())
    throw std::logic_error(fmt::format("node '{}' comes out of id order after nodes known by "
                                       "id only (add_elsewhere)",
                                       name));
  in_order_ = false;
  const auto [it, fresh] =
    nodes_.try_emplace(std::move(name), node_entry{std::move(f), place, std::move(ports)});
  if (!fresh)
    throw std::invalid_argument(fmt::format("duplicate node id '{}'", it->first));
}

void simulation::add_elsewhere(node_place place) {
  if (!in_order_)
    throw std::logic_error("a node known by id only (add_elsewhere) needs every node added in "
                           "id order");
  elsewhere_.push_back({nodes_.size(), node_entry{nullptr, place, {}}});
}

simulation::ordered_nodes simulation::ordered() const {
  ordered_nodes out;
  const size_t n = nodes_.size() + elsewhere_.size();
  out.names.reserve(n);
  out.entries.reserve(n);
  auto e = elsewhere_.begin();
  auto others_up_to = [&](size_t named) {
    for (; e != elsewhere_.end() && e->named_before <= named; ++e) {
      out.names.emplace_back();
      out.entries.push_back(&e->entry);
    }
  };
  size_t named = 0;
  for (const auto& [name, entry] : nodes_) {
    others_up_to(named++);
    out.names.push_back(name);
    out.entries.push_back(&entry);
  }
  others_up_to(named);
  return out;
}

void simulation::add_link(const std::string& src, const std::string& dst,
                          SimTime latency, std::optional<Bandwidth> bw,
                          uint32_t depth) {
  link_spec_rt l;
  l.latency = latency;
  l.bw = bw;
  l.depth = depth;
  links_.push_back(l);
  link_names_.emplace_back(src, dst);
}

void simulation::add_all_to_all(std::vector<std::string> members, SimTime latency) {
  classes_.push_back({std::move(members), latency});
}

void simulation::set_partition(partition_fn f) {
  partition_ = std::move(f);
}

void simulation::set_grouping(grouping_fn f) {
  grouping_ = std::move(f);
}

void simulation::set_recorder_factory(
  std::function<std::shared_ptr<recorder>(const std::string&)> f) {
  recorder_factory_ = std::move(f);
}

std::vector<std::string> simulation::names() const {
  return ordered().names;
}

bool simulation::builds(const std::string& name) const {
  const auto it = nodes_.find(name);
  return it != nodes_.end() && it->second.factory != nullptr;
}

void simulation::validate() const {
  const std::vector<std::string> all = names();
  std::unordered_map<std::string_view, node_id> ids;
  ids.reserve(nodes_.size());
  for (node_id i = 0; i < all.size(); ++i)
    if (!all[i].empty())
      ids.emplace(all[i], i);
  (void)resolve_links(ids);
}

simulation::link_ends simulation::resolve_links(
  const std::unordered_map<std::string_view, node_id>& ids) const {
  link_ends ends;
  ends.src.resize(links_.size());
  ends.dst.resize(links_.size());
  const std::string* last_src = nullptr; // a source's links come together
  node_id last_id = 0;
  for (size_t i = 0; i < links_.size(); ++i) {
    const std::string& src = link_names_[i].first;
    const std::string& dst = link_names_[i].second;
    auto fail = [&](const std::string& what) {
      throw std::invalid_argument(fmt::format("link {} -> {}: {}", src, dst, what));
    };
    if (!last_src || *last_src != src) {
      const auto it = ids.find(src);
      if (it == ids.end())
        fail("unknown source node '" + src + "'");
      last_src = &src;
      last_id = it->second;
    }
    ends.src[i] = last_id;
    const auto to = ids.find(dst);
    if (to == ids.end())
      fail("unknown destination node '" + dst + "'");
    ends.dst[i] = to->second;
    if (links_[i].latency < ps(1))
      fail("latency must be >= 1 ps (a zero-latency link cannot be "
           "synchronised conservatively)");
    if (links_[i].bw && links_[i].bw->mbps == 0)
      fail("bandwidth must be > 0");
  }
  for (const auto& c : classes_) {
    for (const auto& m : c.members)
      if (!ids.count(m))
        throw std::invalid_argument(fmt::format("link class: unknown member node '{}'", m));
    if (c.latency < ps(1))
      throw std::invalid_argument("link class: latency must be >= 1 ps (a zero-latency link "
                                  "cannot be synchronised conservatively)");
  }
  return ends;
}

} // namespace kb
