#include "runtime/config/impl_doc.hpp"

#include "runtime/config/detail/names.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

namespace kb {

namespace {

struct type_rule {
  std::string_view type;
  std::string_view suffix; // required name suffix, empty = any
};

constexpr std::array<type_rule, 9> k_type_rules{{
    {"uint", ""},
    {"int", ""},
    {"float", ""},
    {"bool", ""},
    {"string", ""},
    {"cycles", "_cycles"},
    {"ps", "_ps"},
    {"ns", "_ns"},
    {"GB/s", "_gbps"},
}};

const type_rule* find_rule(std::string_view type) {
  for (const auto& rule : k_type_rules)
    if (rule.type == type)
      return &rule;
  return nullptr;
}

/// Reads the value of `p` from `r` as its type; throws config_error if bad.
void check_value(const param_reader& r, const param_doc& p) {
  const std::string_view t = p.type;
  if (t == "uint")
    (void)r.required<uint64_t>(p.name);
  else if (t == "int")
    (void)r.required<int64_t>(p.name);
  else if (t == "float")
    (void)r.required<double>(p.name);
  else if (t == "bool")
    (void)r.required<bool>(p.name);
  else if (t == "string")
    (void)r.required<std::string>(p.name);
  else if (t == "cycles")
    (void)r.required<Cycles>(p.name);
  else if (t == "ps")
    (void)r.latency(p.name);
  else if (t == "ns")
    (void)r.required<SimTime>(p.name);
  else if (t == "GB/s")
    (void)r.bandwidth(p.name);
}

void validate_doc(const impl_doc& doc) {
  auto bad = [&](const std::string& what) {
    return std::invalid_argument(
        fmt::format("impl_catalog: impl '{}': {}", doc.impl, what));
  };
  if (!detail::is_plain_name(doc.impl))
    throw bad("the impl name must be letters, digits and '_'");
  if (!detail::is_plain_name(doc.kind))
    throw bad(fmt::format("kind '{}' must be letters, digits and '_'", doc.kind));
  std::vector<std::string_view> seen;
  for (const auto& p : doc.params) {
    if (p.name == "impl" || p.name == "kind" || p.name.empty())
      throw bad(fmt::format("parameter name '{}' is reserved", p.name));
    if (std::find(seen.begin(), seen.end(), p.name) != seen.end())
      throw bad(fmt::format("duplicate parameter '{}'", p.name));
    seen.push_back(p.name);
    const type_rule* rule = find_rule(p.type);
    if (rule == nullptr)
      throw bad(
          fmt::format("parameter '{}' has unknown type '{}'", p.name, p.type));
    if (!p.name.ends_with(rule->suffix))
      throw bad(fmt::format("parameter '{}' of type {} must end in '{}'",
                            p.name, p.type, rule->suffix));
    if (p.default_value.empty())
      continue;
    YAML::Node probe(YAML::NodeType::Map);
    probe.force_insert(p.name, YAML::Node(p.default_value));
    try {
      check_value(param_reader(probe, "<default>", doc.impl, 0), p);
    } catch (const config_error& e) {
      throw bad(fmt::format("default of '{}': {}", p.name, e.message()));
    }
  }
}

} // namespace

// -- impl_catalog -------------------------------------------------------------

void impl_catalog::add(impl_doc doc) {
  validate_doc(doc);
  if (impls_.contains(doc.impl))
    throw std::invalid_argument(
        fmt::format("impl_catalog: impl '{}' is registered twice", doc.impl));
  std::string key = doc.impl;
  impls_.emplace(std::move(key), std::move(doc));
}

const impl_doc* impl_catalog::find(std::string_view impl) const {
  auto it = impls_.find(impl);
  return it == impls_.end() ? nullptr : &it->second;
}

bool impl_catalog::has_kind(std::string_view kind) const {
  return std::any_of(impls_.begin(), impls_.end(),
                     [&](const auto& e) { return e.second.kind == kind; });
}

std::vector<const impl_doc*> impl_catalog::of_kind(std::string_view kind) const {
  std::vector<const impl_doc*> out;
  for (const auto& [name, doc] : impls_)
    if (doc.kind == kind)
      out.push_back(&doc);
  return out;
}

std::vector<const impl_doc*> impl_catalog::all_sorted() const {
  std::vector<const impl_doc*> out;
  for (const auto& [name, doc] : impls_)
    out.push_back(&doc);
  std::stable_sort(out.begin(), out.end(), [](const impl_doc* a, const impl_doc* b) {
    return a->kind < b->kind;
  });
  return out;
}

std::vector<std::string> impl_catalog::kinds() const {
  std::vector<std::string> out;
  for (const auto& [name, doc] : impls_)
    out.push_back(doc.kind);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// -- resolve_params
// -------------------------------------------------------------

param_reader resolve_params(const param_reader& raw, const impl_doc& doc,
                            const std::vector<std::string>& structural_keys) {
  std::vector<std::string> allowed = structural_keys;
  for (const auto& p : doc.params)
    allowed.push_back(p.name);
  raw.unknown_keys(allowed);

  YAML::Node out(YAML::NodeType::Map);
  for (const auto& p : doc.params) {
    if (raw.has(p.name)) {
      check_value(raw, p);
      // Share the original nodes so later errors still carry their lines.
      for (const auto kv : raw.node())
        if (kv.first.Scalar() == p.name)
          out.force_insert(kv.first, kv.second);
    } else if (p.default_value.empty()) {
      throw raw.error({}, fmt::format("missing required key '{}'", p.name));
    } else {
      // A node made in code has no mark: errors fall back to raw's line.
      out.force_insert(p.name, YAML::Node(p.default_value));
    }
  }
  return param_reader(out, raw.file(), raw.path(), raw.line());
}

} // namespace kb
