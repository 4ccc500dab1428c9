#include "runtime/machine/kind_registry.hpp"

#include "runtime/config/config_error.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

namespace {

bool same_params(const kind_doc& a, const kind_doc& b) {
  if (a.params.size() != b.params.size())
    return false;
  for (size_t i = 0; i < a.params.size(); ++i)
    if (a.params[i].name != b.params[i].name || a.params[i].type != b.params[i].type ||
        a.params[i].default_value != b.params[i].default_value)
      return false;
  return true;
}

} // namespace

void kind_registry::add_impl(const std::string& impl, kind_doc doc, factory_maker maker) {
  if (impls_.count(impl))
    throw std::invalid_argument(fmt::format("impl '{}' is registered twice", impl));
  const std::string kind = doc.kind;
  if (const kind_doc* known = catalog_.find(kind)) {
    if (!same_params(*known, doc))
      throw std::invalid_argument(fmt::format(
        "impl '{}' of kind '{}' documents other parameters than the kind's other impls",
        impl, kind));
  } else {
    catalog_.add(std::move(doc));
  }
  impls_.emplace(impl, impl_entry{kind, std::move(maker)});
}

node_factory kind_registry::make(const node_spec& spec,
                                 const machine_context& ctx) const {
  auto it = impls_.find(spec.impl);
  if (it == impls_.end() || it->second.kind != spec.kind) {
    std::string known;
    for (const auto& [name, e] : impls_)
      if (e.kind == spec.kind)
        known += (known.empty() ? "" : ", ") + name;
    throw config_error(spec.where, spec.id,
                       fmt::format("impl '{}' of kind '{}' has no implementation in this "
                                   "build (built: {})",
                                   spec.impl, spec.kind, known.empty() ? "none" : known));
  }
  machine_context per_node = ctx;
  per_node.node = spec.id;
  per_node.place = spec.place;
  per_node.kinds = this;
  return it->second.maker(spec.params, per_node);
}

std::optional<service_time_fn> kind_registry::service_time(const node_spec& spec,
                                                          const machine_context& ctx) const {
  auto it = services_.find(spec.impl);
  if (it == services_.end())
    return std::nullopt;
  machine_context per_node = ctx;
  per_node.node = spec.id;
  per_node.place = spec.place;
  per_node.kinds = this;
  return it->second(spec.params, per_node);
}

fabric_kind kind_registry::fabric_of(std::string_view kind) const {
  auto it = fabric_.find(kind);
  return it == fabric_.end() ? fabric_kind{} : it->second;
}

std::span<const port_doc> kind_registry::ports_of(std::string_view kind) const {
  auto it = ports_.find(kind);
  return it == ports_.end() ? std::span<const port_doc>{} : it->second;
}

} // namespace kb
