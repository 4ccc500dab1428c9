#pragma once
// Registers every built-in node kind with the kind registry.

#include "runtime/machine/kind_registry.hpp"

namespace kb {

void register_builtin_kinds(kind_registry& reg);

/// A registry with all built-in kinds.
const kind_registry& builtin_kinds();

} // namespace kb
