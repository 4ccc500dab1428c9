#include "runtime/config/impl_registry.hpp"

#include <fmt/format.h>

#include "runtime/config/detail/names.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/config/yaml_source.hpp"

namespace kb {

void impl_registry::add(impl_entry e) {
  const std::string path = "impls." + e.impl;
  if (!detail::is_plain_name(e.impl))
    throw config_error(e.where, path,
                       fmt::format("invalid impl name '{}' (letters, digits "
                                   "and '_' only)",
                                   e.impl));
  if (!detail::is_plain_name(e.kind))
    throw config_error(e.where, path + ".kind",
                       fmt::format("invalid kind name '{}' (letters, digits "
                                   "and '_' only)",
                                   e.kind));
  if (auto it = impls_.find(e.impl); it != impls_.end())
    throw config_error(e.where, path,
                       fmt::format("duplicate impl '{}' (first declared at {})",
                                   e.impl, it->second.where.str()));
  std::string key = e.impl;
  impls_.emplace(std::move(key), std::move(e));
}

const impl_entry* impl_registry::find(std::string_view impl) const {
  auto it = impls_.find(impl);
  return it == impls_.end() ? nullptr : &it->second;
}

std::vector<const impl_entry*>
impl_registry::of_kind(std::string_view kind) const {
  std::vector<const impl_entry*> out;
  for (const auto& [name, e] : impls_)
    if (e.kind == kind)
      out.push_back(&e);
  return out;
}

std::vector<const impl_entry*> impl_registry::all_sorted() const {
  std::vector<const impl_entry*> out;
  for (const auto& [name, e] : impls_)
    out.push_back(&e);
  return out;
}

impl_registry parse_impl_registry(const YAML::Node& doc,
                                  const std::string& file) {
  const param_reader root = param_reader::root(doc, file);
  root.unknown_keys({"impls"});
  impl_registry reg;
  for (const auto& entry : root.map("impls").map_entries()) {
    const param_reader& r = entry.value;
    r.unknown_keys({"kind", "description"});
    reg.add({entry.key, r.required<std::string>("kind"),
             r.get_or<std::string>("description", ""), entry.where});
  }
  return reg;
}

impl_registry load_impl_registry(const std::string& path) {
  return parse_impl_registry(load_yaml_file(path), path);
}

} // namespace kb
