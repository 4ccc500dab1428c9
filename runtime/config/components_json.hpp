#pragma once
// `kernbench list-components --json`: the kinds, implementations, keys and
// ports of `print_components` as one JSON document (docs/results-schema.md).

#include <string>

#include "runtime/config/impl_doc.hpp"

namespace kb {

/// {"schema_version":2,"kinds":[{"kind","impls":[{"impl","description",
/// "keys":[{"name","type","default"|null,"doc"}],"ports":[{"name","to"}],
/// "statistics":[{"name","unit","doc"}]}]}]};
/// kinds and impls sorted by name.
std::string components_json(const impl_catalog& impls);

} // namespace kb
