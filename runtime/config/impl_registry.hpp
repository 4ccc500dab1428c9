#pragma once
// The component registry: which implementation names exist and which node
// kind each implements (config/components.yaml).

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/config_error.hpp"

namespace kb {

/// One registered implementation, e.g. `pe_gemm_v1` of kind `pe_gemm`.
struct impl_entry {
  std::string impl;
  std::string kind;
  /// One line for `kernbench list-components`; may be empty.
  std::string description;
  source_loc where;
};

/// Implementation name → kind.
class impl_registry {
public:
  /// Registers `e`; a second entry with the same impl name is a
  /// `config_error` at `e.where`.
  void add(impl_entry e);

  /// The entry named `impl`, or nullptr.
  const impl_entry* find(std::string_view impl) const;

  /// The entries of one kind, sorted by impl name.
  std::vector<const impl_entry*> of_kind(std::string_view kind) const;

  /// Every entry, sorted by impl name.
  std::vector<const impl_entry*> all_sorted() const;

  std::size_t size() const { return impls_.size(); }

private:
  std::map<std::string, impl_entry, std::less<>> impls_;
};

/// Loads a registry file:
/// ```yaml
/// impls:
///   pe_gemm_v1: {kind: pe_gemm, description: "MAC array, v1 timing"}
/// ```
/// Throws `config_error` for malformed YAML, an entry that is not a map, a
/// missing `kind`, an unknown key, a bad name or a duplicate impl.
impl_registry load_impl_registry(const std::string& path);

/// As `load_impl_registry`, from a parsed document; `file` names it in errors.
impl_registry parse_impl_registry(const YAML::Node& doc,
                                  const std::string& file);

} // namespace kb
