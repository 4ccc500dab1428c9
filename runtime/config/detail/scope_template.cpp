#include "runtime/config/detail/scope_template.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/config/detail/link_pattern.hpp"
#include "runtime/config/detail/load_work.hpp"
#include "runtime/config/detail/names.hpp"
#include "runtime/config/pe_wires.hpp"

namespace kb::detail {

namespace {

constexpr std::string_view k_zero_latency =
    "link latency must be >= 1 ps: a zero-latency link cannot be "
    "synchronised conservatively";

bool is_instance_name(std::string_view name, std::string_view prefix) {
  if (prefix.empty() || !name.starts_with(prefix) ||
      name.size() == prefix.size())
    return false;
  const std::string_view digits = name.substr(prefix.size());
  return std::all_of(digits.begin(), digits.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

std::string join_names(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string read_endpoint(const param_reader& item, std::string_view key) {
  std::string s = item.required<std::string>(key);
  if (!is_valid_pattern(s))
    throw item.error(key, fmt::format("invalid endpoint '{}' (dot-separated "
                                      "names; '*' matches within one name)",
                                      s));
  return s;
}

/// from/to plus the keys every link accepts.
link_tmpl read_common(const param_reader& item, uint32_t default_depth) {
  link_tmpl l;
  l.item = item;
  l.where = item.where();
  l.from = read_endpoint(item, "from");
  l.to = read_endpoint(item, "to");
  const std::size_t sf = star_count(l.from), st = star_count(l.to);
  if (sf > 0 && st > 0 && sf != st)
    throw item.error("to", fmt::format("'{}' has {} '*' but 'from' has {}: "
                                       "when both ends have patterns, each "
                                       "'*' of 'to' takes what the same '*' "
                                       "of 'from' matched",
                                       l.to, st, sf));
  l.queue_depth = item.get_or<uint32_t>("queue_depth", default_depth);
  if (l.queue_depth == 0)
    throw item.error("queue_depth", "must be >= 1");
  l.bidirectional = item.get_or<bool>("bidirectional", false);
  return l;
}

/// The position of `id` in the sorted `ids`, if it is there.
std::optional<uint32_t> find_id(const std::vector<std::string_view>& ids,
                                std::string_view id) {
  ++this_thread_load_work().id_lookups;
  const auto it = std::lower_bound(ids.begin(), ids.end(), id);
  if (it == ids.end() || *it != id)
    return std::nullopt;
  return static_cast<uint32_t>(it - ids.begin());
}

void add_link(const link_tmpl& l, std::string_view lead,
              const std::vector<std::string_view>& ids, uint32_t src,
              uint32_t dst, std::vector<link_ref>& out) {
  if (src == dst)
    throw l.item.error("to", fmt::format("link from '{}{}' to itself", lead,
                                         ids[src]));
  if (l.bidirectional)
    out.push_back({dst, src, &l});
  out.push_back({src, dst, &l});
}

/// A key `impl` does not read that another impl of its kind does is named
/// with that impl, e.g. `channels` on hbm_ctrl_v1 (resolve_params refuses
/// any other unknown key).
void check_other_impls_keys(const param_reader& r, const impl_doc& impl,
                            const impl_catalog& impls) {
  for (const std::string& key : r.keys()) {
    if (key == "impl" || key == "kind" ||
        std::any_of(impl.params.begin(), impl.params.end(),
                    [&](const param_doc& p) { return p.name == key; }))
      continue;
    for (const impl_doc* other : impls.of_kind(impl.kind))
      if (std::any_of(other->params.begin(), other->params.end(),
                      [&](const param_doc& p) { return p.name == key; }))
        throw r.error(key, fmt::format("impl {} does not read '{}'; impl {} of kind {} does",
                                       impl.impl, key, other->impl, impl.kind));
  }
}

} // namespace

std::vector<component_tmpl> read_components(const param_reader& scope,
                                            std::string_view instance_prefix,
                                            const impl_catalog& impls) {
  std::vector<component_tmpl> out;
  for (const auto& e : scope.map_or_empty("components").map_entries()) {
    const param_reader& r = e.value;
    if (!is_plain_name(e.key))
      throw config_error(e.where, r.path(),
                         fmt::format("invalid component name '{}' (letters, "
                                     "digits and '_' only)",
                                     e.key));
    if (is_instance_name(e.key, instance_prefix))
      throw config_error(e.where, r.path(),
                         fmt::format("component name '{}' is reserved for the "
                                     "instances {}0, {}1, ...",
                                     e.key, instance_prefix, instance_prefix));
    const bool explicit_kind = r.has("kind");
    std::string kind = explicit_kind ? r.required<std::string>("kind") : e.key;
    if (!impls.has_kind(kind))
      throw r.error(explicit_kind ? "kind" : "",
                    fmt::format("unknown kind '{}' ({}known: {})", kind,
                                explicit_kind ? ""
                                              : "a component's kind is its "
                                                "name unless it sets 'kind'; ",
                                join_names(impls.kinds())));
    std::string impl = r.required<std::string>("impl");
    const impl_doc* entry = impls.find(impl);
    if (entry == nullptr) {
      std::vector<std::string> known;
      for (const impl_doc* k : impls.of_kind(kind))
        known.push_back(k->impl);
      throw r.error("impl",
                    fmt::format("unknown impl '{}' (known: {})", impl,
                                known.empty()
                                    ? fmt::format("none of kind '{}'", kind)
                                    : join_names(known)));
    }
    if (entry->kind != kind)
      throw r.error("impl", fmt::format("impl '{}' is of kind '{}', but "
                                        "component '{}' is of kind '{}'",
                                        impl, entry->kind, e.key, kind));
    check_other_impls_keys(r, *entry, impls);
    out.push_back({e.key, std::move(kind), std::move(impl),
                   resolve_params(r, *entry, {"impl", "kind"}), e.where,
                   r.path()});
  }
  return out;
}

std::vector<link_tmpl> read_fabric_links(const param_reader& scope,
                                         uint32_t default_depth) {
  std::vector<link_tmpl> out;
  for (const param_reader& item : scope.list_of_maps("links")) {
    item.unknown_keys({"from", "to", "latency_ps", "latency_ns",
                       "bandwidth_gbps", "queue_depth", "bidirectional"});
    link_tmpl l = read_common(item, default_depth);
    const bool has_ps = item.has("latency_ps"), has_ns = item.has("latency_ns");
    if (has_ps && has_ns)
      throw item.error("latency_ns", "give latency_ps or latency_ns, not both");
    if (!has_ps && !has_ns)
      throw item.error({}, "missing required key 'latency_ps' (or "
                           "'latency_ns')");
    const std::string_view lat_key = has_ps ? "latency_ps" : "latency_ns";
    l.latency =
        has_ps ? item.latency(lat_key) : item.required<SimTime>(lat_key);
    if (l.latency == SimTime::zero())
      throw item.error(lat_key, std::string(k_zero_latency));
    if (item.has("bandwidth_gbps"))
      l.bandwidth = item.bandwidth("bandwidth_gbps");
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<link_tmpl> read_pe_links(const param_reader& pe_template,
                                     const std::vector<component_tmpl>& comps,
                                     SimTime wire_latency,
                                     uint32_t default_depth) {
  std::vector<link_tmpl> out;
  if (pe_template.has("links")) {
    for (const param_reader& item : pe_template.list_of_maps("links")) {
      item.unknown_keys({"from", "to", "queue_depth", "bidirectional"});
      link_tmpl l = read_common(item, default_depth);
      l.latency = wire_latency;
      out.push_back(std::move(l));
    }
    return out;
  }
  auto exists = [&](std::string_view name) {
    return std::any_of(comps.begin(), comps.end(),
                       [&](const component_tmpl& c) { return c.name == name; });
  };
  for (const pe_wire& w : default_pe_wires()) {
    const bool ends = exists(w.from) && exists(w.to);
    if (!ends && w.optional)
      continue;
    if (!ends)
      throw pe_template.error(
          {}, fmt::format("the default wire {} -> {} needs component '{}'; "
                          "declare it or list the PE's links",
                          w.from, w.to, exists(w.from) ? w.to : w.from));
    link_tmpl l;
    l.from = w.from;
    l.to = w.to;
    l.latency = wire_latency;
    l.queue_depth = default_depth;
    l.item = pe_template;
    l.where = pe_template.where();
    out.push_back(std::move(l));
  }
  return out;
}

void expand_links(const std::vector<link_tmpl>& links, std::string_view lead,
                  const std::vector<std::string_view>& ids,
                  std::vector<link_ref>& out) {
  for (const link_tmpl& l : links) {
    const bool from_pattern = star_count(l.from) > 0;
    const bool to_pattern = star_count(l.to) > 0;
    std::optional<uint32_t> from, to;
    if (!from_pattern && !(from = find_id(ids, l.from)))
      throw l.item.error("from", fmt::format("link from unknown node '{}{}'",
                                             lead, l.from));
    if (!to_pattern && !(to = find_id(ids, l.to)))
      throw l.item.error("to", fmt::format("link to unknown node '{}{}'", lead,
                                           l.to));
    if (!from_pattern && !to_pattern) {
      add_link(l, lead, ids, *from, *to, out);
      continue;
    }
    // Expand the pattern end(s) over the nodes of the scope instance.
    const std::string& pattern = from_pattern ? l.from : l.to;
    bool matched = false;
    for (uint32_t i = 0; i < ids.size(); ++i) {
      ++this_thread_load_work().pattern_tests;
      auto caps = match_pattern(pattern, ids[i]);
      if (!caps)
        continue;
      matched = true;
      if (!from_pattern) {
        add_link(l, lead, ids, *from, i, out);
      } else if (!to_pattern) {
        add_link(l, lead, ids, i, *to, out);
      } else {
        const std::string dst = substitute(l.to, *caps);
        const std::optional<uint32_t> d = find_id(ids, dst);
        if (!d)
          throw l.item.error("to",
                             fmt::format("link to unknown node '{}{}' (from "
                                         "'{}{}')",
                                         lead, dst, lead, ids[i]));
        add_link(l, lead, ids, i, *d, out);
      }
    }
    if (!matched)
      throw l.item.error(from_pattern ? "from" : "to",
                         fmt::format("'{}{}' matches no node", lead, pattern));
  }
}

} // namespace kb::detail
