#pragma once
// `kernbench list-components --json`: the kinds, impls and config keys of
// `print_components` as one JSON document (docs/results-schema.md).

#include <string>

#include "runtime/config/impl_registry.hpp"
#include "runtime/config/kind_doc.hpp"

namespace kb {

/// {"schema_version":1,"kinds":[{"kind","summary","impls":[{"impl",
/// "description"}],"keys":[{"name","type","default"|null,"doc"}]}],
/// "undocumented_impls":[{"impl","kind"}]}; kinds and impls sorted by name.
std::string components_json(const kind_catalog& kinds, const impl_registry& impls);

} // namespace kb
