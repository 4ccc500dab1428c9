#pragma once
// The text of `kernbench list-components`.

#include <ostream>

#include "runtime/config/impl_doc.hpp"

namespace kb {

/// Prints every kind (sorted) and under it each of its implementations:
/// the description, the keys (name, type, default or `required`, doc) in
/// aligned columns, the ports it sends on and the statistics it reports.
void print_components(std::ostream& out, const impl_catalog& impls);

} // namespace kb
