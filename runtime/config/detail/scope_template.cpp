#include "runtime/config/detail/scope_template.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/config/detail/link_pattern.hpp"
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

void add_link(const link_tmpl& l, std::string src, std::string dst,
              std::vector<link_spec>& out) {
  if (src == dst)
    throw l.item.error("to", fmt::format("link from '{}' to itself", src));
  if (l.bidirectional)
    out.push_back({dst, src, l.latency, l.bandwidth, l.queue_depth, l.where});
  out.push_back({std::move(src), std::move(dst), l.latency, l.bandwidth,
                 l.queue_depth, l.where});
}

} // namespace

std::vector<component_tmpl> read_components(const param_reader& scope,
                                            std::string_view instance_prefix,
                                            const impl_registry& impls,
                                            const kind_catalog& kinds) {
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
    const kind_doc* doc = kinds.find(kind);
    if (doc == nullptr)
      throw r.error(explicit_kind ? "kind" : "",
                    fmt::format("unknown kind '{}' ({}known: {})", kind,
                                explicit_kind ? ""
                                              : "a component's kind is its "
                                                "name unless it sets 'kind'; ",
                                join_names(kinds.names())));
    std::string impl = r.required<std::string>("impl");
    const impl_entry* entry = impls.find(impl);
    if (entry == nullptr) {
      std::vector<std::string> known;
      for (const impl_entry* k : impls.of_kind(kind))
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
    out.push_back({e.key, std::move(kind), std::move(impl),
                   resolve_params(r, *doc, {"impl", "kind"}), e.where,
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

void expand_links(const std::vector<link_tmpl>& links, std::string_view prefix,
                  const std::vector<std::string>& ids,
                  std::vector<link_spec>& out) {
  const std::string lead = prefix.empty() ? "" : std::string(prefix) + ".";
  auto first = std::lower_bound(ids.begin(), ids.end(), lead);
  auto last = first;
  while (last != ids.end() && last->starts_with(lead))
    ++last;
  auto exists = [&](const std::string& id) {
    return std::binary_search(first, last, id);
  };
  for (const link_tmpl& l : links) {
    const std::string from = lead + l.from, to = lead + l.to;
    const bool from_pattern = star_count(from) > 0;
    const bool to_pattern = star_count(to) > 0;
    if (!from_pattern && !exists(from))
      throw l.item.error("from",
                         fmt::format("link from unknown node '{}'", from));
    if (!to_pattern && !exists(to))
      throw l.item.error("to", fmt::format("link to unknown node '{}'", to));
    if (!from_pattern && !to_pattern) {
      add_link(l, from, to, out);
      continue;
    }
    // Expand the pattern end(s) over the nodes of this scope instance.
    const std::string& pattern = from_pattern ? from : to;
    bool matched = false;
    for (auto it = first; it != last; ++it) {
      auto caps = match_pattern(pattern, *it);
      if (!caps)
        continue;
      matched = true;
      if (!from_pattern) {
        add_link(l, from, *it, out);
      } else if (!to_pattern) {
        add_link(l, *it, to, out);
      } else {
        std::string dst = substitute(to, *caps);
        if (!exists(dst))
          throw l.item.error(
              "to",
              fmt::format("link to unknown node '{}' (from '{}')", dst, *it));
        add_link(l, *it, std::move(dst), out);
      }
    }
    if (!matched)
      throw l.item.error(from_pattern ? "from" : "to",
                         fmt::format("'{}' matches no node", pattern));
  }
}

} // namespace kb::detail
