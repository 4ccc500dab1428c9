#include "runtime/config/detail/machine_tree.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "runtime/config/detail/load_work.hpp"

namespace kb::detail {

// Node positions are held in 32 bits (two make a link's sort key).
static_assert(max_topology_nodes <= UINT32_MAX);

namespace {

/// The prefix, with its '.', of child `i` of the instance at `prefix`.
std::string child_prefix(const std::string& prefix, std::string_view name,
                         uint32_t i) {
  return fmt::format("{}{}{}.", prefix, name, i);
}

/// A link over the whole machine: (src, dst) positions as one sort key, the
/// order in which it was declared, and its template (an index into a list).
struct placed_link {
  uint64_t key;
  uint32_t seq;
  uint32_t tmpl;
};

} // namespace

// -- construction -------------------------------------------------------------

machine_tree::machine_tree(std::vector<level_tmpl> levels)
    : levels_(std::move(levels)), order_(levels_.size()) {
  // Ids sort as their names do within one instance: a component `name` and a
  // child's ids `<child_name><i>.<rest>` compare as `name` and
  // `<child_name><i>.` (names hold no '.'), so every child's nodes stay
  // together and the children sort by that key.
  struct keyed {
    std::string key;
    entry e;
  };
  for (std::size_t l = levels_.size(); l-- > 0;) {
    const level_tmpl& lv = levels_[l];
    const bool has_children = l + 1 < levels_.size();
    std::vector<keyed> keys;
    keys.reserve(lv.components->size() + (has_children ? lv.children : 0));
    for (uint32_t i = 0; i < lv.components->size(); ++i)
      keys.push_back({(*lv.components)[i].name, {i, 0}});
    if (has_children)
      for (uint32_t i = 0; i < lv.children; ++i)
        keys.push_back({fmt::format("{}{}.", lv.child_name, i), {no_component, i}});
    std::stable_sort(keys.begin(), keys.end(),
                     [](const keyed& a, const keyed& b) { return a.key < b.key; });
    level_order& o = order_[l];
    const uint64_t child_size = has_children ? order_[l + 1].size : 0;
    o.child_offset.resize(has_children ? lv.children : 0);
    o.entries.reserve(keys.size());
    for (const keyed& k : keys) {
      o.entries.push_back(k.e);
      if (k.e.component != no_component) {
        ++o.size;
      } else {
        o.child_offset[k.e.child] = o.size;
        o.size += child_size;
      }
    }
  }
}

// -- expansion ----------------------------------------------------------------

void machine_tree::check_unique_names() const {
  // As the nodes were once instantiated: the system's, then sip0's, then
  // sip0.cube0's, ...; the second entry of a name is the one reported.
  std::string lead;
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    std::unordered_map<std::string_view, const component_tmpl*> seen;
    for (const component_tmpl& c : *levels_[l].components) {
      const auto [it, fresh] = seen.emplace(c.name, &c);
      if (!fresh)
        throw config_error(c.where, c.path,
                           fmt::format("duplicate node id '{}{}' (first "
                                       "declared at {})",
                                       lead, c.name, it->second->where.str()));
    }
    lead = child_prefix(lead, levels_[l].child_name, 0);
  }
}

std::vector<node_spec> machine_tree::nodes() const {
  std::vector<node_spec> out;
  if (levels_.empty())
    return out;
  out.reserve(order_[0].size);
  emit(0, "", {}, out);
  this_thread_load_work().nodes += out.size();
  return out;
}

void machine_tree::emit(std::size_t level, const std::string& prefix, const node_place& place,
                        std::vector<node_spec>& out) const {
  const level_tmpl& lv = levels_[level];
  for (const entry& e : order_[level].entries) {
    if (e.component == no_component) {
      // The system's children are SIPs, a SIP's cubes, a cube's PEs.
      node_place child = place;
      std::optional<uint32_t>* number[] = {&child.sip, &child.cube, &child.pe};
      if (level < std::size(number))
        *number[level] = e.child;
      emit(level + 1, child_prefix(prefix, lv.child_name, e.child), child, out);
      continue;
    }
    const component_tmpl& c = (*lv.components)[e.component];
    std::string id;
    id.reserve(prefix.size() + c.name.size());
    id.append(prefix).append(c.name);
    out.push_back({std::move(id), c.kind, c.impl, c.params, c.where, place});
  }
}

std::vector<uint64_t> machine_tree::instance_bases(std::size_t level) const {
  std::vector<uint64_t> bases{0};
  for (std::size_t l = 0; l < level; ++l) {
    std::vector<uint64_t> next;
    next.reserve(bases.size() * order_[l].child_offset.size());
    for (uint64_t b : bases)
      for (uint64_t off : order_[l].child_offset)
        next.push_back(b + off);
    bases = std::move(next);
  }
  return bases;
}

std::vector<link_spec>
machine_tree::links(const std::vector<node_spec>& nodes) const {
  const std::size_t n = levels_.size();
  // Each level's links, once, on its first instance (sip0.cube0.pe0, ...),
  // innermost first: as the loader once expanded every instance, so the
  // first error is the same.
  std::vector<std::vector<link_ref>> refs(n);
  std::vector<std::string> lead(n);
  std::vector<uint64_t> first(n, 0);
  for (std::size_t l = 1; l < n; ++l) {
    lead[l] = child_prefix(lead[l - 1], levels_[l - 1].child_name, 0);
    first[l] = first[l - 1] + order_[l - 1].child_offset.at(0);
  }
  for (std::size_t l = n; l-- > 0;) {
    std::vector<std::string_view> ids;
    ids.reserve(order_[l].size);
    for (uint64_t k = 0; k < order_[l].size; ++k)
      ids.push_back(std::string_view(nodes[first[l] + k].id).substr(lead[l].size()));
    expand_links(*levels_[l].links, lead[l], ids, refs[l]);
  }

  // Every instance's links by offset; for one (src, dst) pair, the order of
  // declaration (innermost level first) is kept, so a duplicate names the
  // same two entries as before.
  std::vector<std::vector<uint64_t>> bases(n);
  std::vector<const link_tmpl*> tmpls;
  std::size_t total = 0;
  for (std::size_t l = 0; l < n; ++l) {
    bases[l] = instance_bases(l);
    total += bases[l].size() * refs[l].size();
    for (const link_tmpl& t : *levels_[l].links)
      tmpls.push_back(&t);
  }
  if (total > UINT32_MAX)
    throw std::length_error(fmt::format("{} links: too many to sort", total));
  const auto tmpl_index = [&](const link_tmpl* t) {
    return static_cast<uint32_t>(std::find(tmpls.begin(), tmpls.end(), t) - tmpls.begin());
  };
  std::vector<placed_link> placed;
  placed.reserve(total);
  for (std::size_t l = n; l-- > 0;) {
    std::vector<uint32_t> ref_tmpl(refs[l].size());
    for (std::size_t i = 0; i < refs[l].size(); ++i)
      ref_tmpl[i] = tmpl_index(refs[l][i].tmpl);
    for (uint64_t b : bases[l])
      for (std::size_t i = 0; i < refs[l].size(); ++i)
        placed.push_back({(b + refs[l][i].src) << 32 | (b + refs[l][i].dst),
                          static_cast<uint32_t>(placed.size()), ref_tmpl[i]});
  }
  // In place (no buffer as large again, as a stable sort takes); `seq` keeps
  // the order of declaration for a pair declared twice.
  std::sort(placed.begin(), placed.end(), [](const placed_link& a, const placed_link& b) {
    return a.key != b.key ? a.key < b.key : a.seq < b.seq;
  });

  std::vector<link_spec> out;
  out.reserve(placed.size());
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const placed_link& p = placed[i];
    const link_tmpl& t = *tmpls[p.tmpl];
    const std::string& src = nodes[p.key >> 32].id;
    const std::string& dst = nodes[p.key & UINT32_MAX].id;
    if (i > 0 && placed[i - 1].key == p.key)
      throw config_error(t.where, "",
                         fmt::format("duplicate link {} -> {} (first declared "
                                     "at {})",
                                     src, dst, tmpls[placed[i - 1].tmpl]->where.str()));
    out.push_back({src, dst, t.latency, t.bandwidth, t.queue_depth, t.where});
  }
  this_thread_load_work().links += out.size();
  return out;
}

} // namespace kb::detail
