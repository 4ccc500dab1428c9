#pragma once
// Documentation of node implementations and their parameters, and the check of a node's
// parameters against it.

#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/config/param_reader.hpp"

namespace kb {

/// One documented parameter of a node kind.
///
/// `type` is one of: `uint`, `int`, `float`, `bool`, `string`, `cycles`
/// (name ends in `_cycles`), `ps` (integer picoseconds, name ends in `_ps`),
/// `ns` (nanoseconds with up to 3 decimals, name ends in `_ns`), `GB/s`
/// (bandwidth > 0, name ends in `_gbps`).
struct param_doc {
  std::string name;
  std::string type;
  /// YAML text of the default; empty means the key is required.
  std::string default_value;
  std::string doc;
};

/// An output port a node kind declares (as SST components do): the
/// component of the node's own scope (its PE, its cube) it sends to. When
/// the machine is built, a node whose topology has no link for a declared
/// port is an error naming the node and the port (runtime/machine/machine).
struct port_doc {
  std::string_view name;
  std::string_view to; ///< a component name, e.g. "pe_fetch_store"
};

/// A statistic an implementation reports at the end of a run
/// (runtime/stat_decl.hpp, ADR-0038): its figures' name (`{}` stands for the
/// lane, command, channel or link), unit and meaning, and its id.
struct stat_doc {
  std::string name;
  std::string unit;
  std::string doc;
  uint32_t id = 0;
};

/// What one implementation of a node kind is (seed ADR-0021 D8): its name
/// (`impl:` in a topology), its kind, one line of description, the keys it
/// reads and the ports it sends on. Made from the implementation's own
/// declaration (runtime/config/param_decl.hpp, ADR-0037): the C++
/// registration is the only registry.
struct impl_doc {
  std::string impl;
  std::string kind;
  std::string description;
  std::vector<param_doc> params = {};
  std::vector<port_doc> ports = {};
  std::vector<stat_doc> stats = {}; ///< besides every node's link statistics
};

/// Every registered implementation, by impl name.
class impl_catalog {
public:
  /// Adds an implementation. Throws `std::invalid_argument` for an impl or
  /// kind name that is not a plain name, a duplicate impl, a duplicate or
  /// reserved parameter, an unknown type, a name that breaks the unit-suffix
  /// rule, or a default that is not a valid value of its type.
  void add(impl_doc doc);

  /// The implementation named `impl`, or nullptr.
  const impl_doc* find(std::string_view impl) const;

  /// Whether some implementation is of `kind`.
  bool has_kind(std::string_view kind) const;

  /// The implementations of `kind`, sorted by impl name.
  std::vector<const impl_doc*> of_kind(std::string_view kind) const;

  /// Every implementation, sorted by kind, then impl name.
  std::vector<const impl_doc*> all_sorted() const;

  /// The kinds that have an implementation, sorted.
  std::vector<std::string> kinds() const;

  std::size_t size() const { return impls_.size(); }

private:
  std::map<std::string, impl_doc, std::less<>> impls_;
};

/// Checks the parameters of one node against its implementation: a key that is neither
/// a documented parameter nor in `structural_keys` (e.g. `impl`) is an error,
/// a missing required parameter is an error, every value must parse as its
/// documented type. Returns a reader over the documented parameters only,
/// with defaults filled in; it keeps `raw`'s file, path and line.
param_reader resolve_params(const param_reader& raw, const impl_doc& doc,
                            const std::vector<std::string>& structural_keys);

} // namespace kb
