#include "runtime/machine/kind_registry.hpp"

#include "runtime/config/config_error.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

void kind_registry::add_impl(impl_doc doc, factory_maker maker) {
  std::string impl = doc.impl, kind = doc.kind;
  catalog_.add(std::move(doc)); // refuses a second registration of `impl`
  impls_.emplace(std::move(impl), impl_entry{std::move(kind), std::move(maker)});
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

std::span<const port_doc> kind_registry::ports_of(std::string_view impl) const {
  const impl_doc* d = catalog_.find(impl);
  return d == nullptr ? std::span<const port_doc>{} : std::span<const port_doc>{d->ports};
}

} // namespace kb
