#pragma once
// The text of `kernbench list-components`.

#include <ostream>

#include "runtime/config/impl_registry.hpp"
#include "runtime/config/kind_doc.hpp"

namespace kb {

/// Prints every documented kind (sorted), its registered impls and its
/// parameters (name, type, default or `required`, doc) in aligned columns;
/// then any registered impl whose kind is not documented.
void print_components(std::ostream& out, const kind_catalog& kinds,
                      const impl_registry& impls);

} // namespace kb
