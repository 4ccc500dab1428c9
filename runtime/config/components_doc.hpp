#pragma once
// The component catalog as the documents the repository keeps
// (ADR-0037): `kernbench list-components --yaml` is config/components.yaml
// and `--markdown` is docs/components.md. Both are
// made from the implementations' own declarations; a test fails when the
// committed copies differ (scripts/components_doc.py --check).

#include <string>

#include "runtime/config/impl_doc.hpp"

namespace kb {

/// The catalog as YAML: a header comment, then
/// `kinds: {KIND: {IMPL: {description, keys: {KEY: {type, default, doc}},
/// ports: {PORT: COMPONENT}, statistics: {NAME: {unit, doc}}}}}`, kinds and
/// impls sorted by name, the rest in declaration order; a required key has
/// no `default`.
std::string components_yaml(const impl_catalog& impls);

/// The catalog as Markdown (docs/components.md): a title and what it is,
/// then per kind a `##` heading, per implementation a `###` heading, its
/// description, a table of its keys (key, type,
/// default, meaning), its ports and a table of its statistics.
std::string components_markdown(const impl_catalog& impls);

} // namespace kb
