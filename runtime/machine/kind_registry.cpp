#include "runtime/machine/kind_registry.hpp"

#include "runtime/config/config_error.hpp"

namespace kb {

node_factory kind_registry::make(const node_spec& spec,
                                 const machine_context& ctx) const {
  auto it = makers_.find(spec.kind);
  if (it == makers_.end())
    throw config_error(spec.where, spec.id,
                       "kind '" + spec.kind + "' has no implementation");
  machine_context per_node = ctx;
  per_node.node = spec.id;
  return it->second(spec.params, per_node);
}

std::optional<service_time_fn> kind_registry::service_time(const node_spec& spec,
                                                          const machine_context& ctx) const {
  auto it = services_.find(spec.kind);
  if (it == services_.end())
    return std::nullopt;
  machine_context per_node = ctx;
  per_node.node = spec.id;
  return it->second(spec.params, per_node);
}

} // namespace kb
