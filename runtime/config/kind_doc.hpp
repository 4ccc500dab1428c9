#pragma once
// Documentation of node kinds and their parameters, and the check of a node's
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

/// What a node kind is and which parameters it reads.
struct kind_doc {
  std::string kind;
  std::string summary;
  std::vector<param_doc> params;
};

/// All documented node kinds, by name.
class kind_catalog {
public:
  /// Adds a kind. Throws `std::invalid_argument` for a duplicate kind or
  /// parameter, an unknown type, a name that breaks the unit-suffix rule, or
  /// a default that is not a valid value of its type.
  void add(kind_doc doc);

  /// The kind named `kind`, or nullptr.
  const kind_doc* find(std::string_view kind) const;

  /// Every kind, sorted by name.
  std::vector<const kind_doc*> all_sorted() const;

  /// The names of every kind, sorted.
  std::vector<std::string> names() const;

private:
  std::map<std::string, kind_doc, std::less<>> kinds_;
};

/// Checks the parameters of one node against its kind: a key that is neither
/// a documented parameter nor in `structural_keys` (e.g. `impl`) is an error,
/// a missing required parameter is an error, every value must parse as its
/// documented type. Returns a reader over the documented parameters only,
/// with defaults filled in; it keeps `raw`'s file, path and line.
param_reader resolve_params(const param_reader& raw, const kind_doc& doc,
                            const std::vector<std::string>& structural_keys);

} // namespace kb
