#include "runtime/machine/kind_registry.hpp"

#include "runtime/config/config_error.hpp"

namespace kb {

node_factory kind_registry::make(const node_spec& spec,
                                 const machine_context& ctx) const {
  auto it = makers_.find(spec.kind);
  if (it == makers_.end())
    throw config_error(spec.where, spec.id,
                       "kind '" + spec.kind + "' has no implementation");
  return it->second(spec.params, ctx);
}

} // namespace kb
