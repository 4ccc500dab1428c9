#pragma once
// A typed, error-reporting view of one YAML map in a configuration file.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/config_error.hpp"
#include "runtime/sim_time.hpp"

namespace kb {

/// The value types `param_reader::required` and `get_or` can read.
/// `SimTime` needs a key ending in `_ps` (integer picoseconds) or `_ns`
/// (nanoseconds, up to 3 decimals); `*_cycles` keys are read as `Cycles` and
/// turned into time by the caller, who knows the clock. `Bandwidth` is GB/s.
template <class T>
concept param_value = std::same_as<T, uint64_t> || std::same_as<T, uint32_t> ||
    std::same_as<T, int64_t> || std::same_as<T, double> ||
    std::same_as<T, bool> || std::same_as<T, std::string> ||
    std::same_as<T, SimTime> || std::same_as<T, Cycles> ||
    std::same_as<T, Bandwidth>;

/// Reads typed values out of one YAML map and remembers the file and the
/// dotted key path, so that every error reads
/// `file:line: path.key: message`. Lookups iterate the map instead of using
/// yaml-cpp's operator[] (which allocates in the shared tree even when
/// const), so finished readers can be read from several threads.
class param_reader {
public:
  // -- member types -----------------------------------------------------------

  /// One `key: value` of a map whose values are maps (see `map_entries`).
  struct entry;

  // -- construction -----------------------------------------------------------

  /// An empty map with no file.
  param_reader() = default;

  /// `map` must be a YAML map or null (read as empty); otherwise throws.
  /// `line` is where the map is declared: errors about missing keys use it.
  param_reader(YAML::Node map, shared_text file, shared_text path,
               std::size_t line);

  /// The top-level map of a document loaded from `file`.
  static param_reader root(YAML::Node doc, std::string file);

  // Copies share the YAML tree. Assignment rebinds this reader to the other
  // reader's map: YAML::Node's own operator= would write through to the node
  // every other copy refers to.
  param_reader(const param_reader&) = default;
  param_reader(param_reader&&) = default;
  param_reader& operator=(const param_reader& other);
  param_reader& operator=(param_reader&& other) noexcept;
  ~param_reader() = default;

  // -- typed reads ------------------------------------------------------------

  /// The value at `key`; throws if it is missing or of the wrong type.
  template <param_value T> T required(std::string_view key) const;

  /// The value at `key`, or `fallback` when the key is absent.
  template <param_value T> T get_or(std::string_view key, T fallback) const;

  /// A required non-negative integer number of picoseconds.
  SimTime latency(std::string_view key) const;

  /// A required bandwidth in GB/s: a number with at most 3 decimals (held
  /// exactly as MB/s); zero or negative is an error.
  Bandwidth bandwidth(std::string_view key) const;

  bool has(std::string_view key) const;

  // -- structure --------------------------------------------------------------

  /// The map at `key` (required; `key:` with no value is an empty map).
  param_reader map(std::string_view key) const;

  /// The map at `key`, or an empty map when the key is absent.
  param_reader map_or_empty(std::string_view key) const;

  /// The list of maps at `key`, in order; empty when the key is absent or
  /// has no value.
  /// Item `i` has path `path.key[i]`.
  std::vector<param_reader> list_of_maps(std::string_view key) const;

  /// Every `key: map` of this map in document order, duplicates included.
  std::vector<entry> map_entries() const;

  /// The keys of this map in document order, duplicates included.
  std::vector<std::string> keys() const;

  /// Throws naming the first key (in document order) that is not in
  /// `allowed`, or the first key that appears twice.
  void unknown_keys(std::initializer_list<std::string_view> allowed) const;
  void unknown_keys(const std::vector<std::string>& allowed) const;

  /// The underlying YAML map.
  const YAML::Node& node() const { return node_; }

  // -- error reporting --------------------------------------------------------

  const std::string& file() const { return file_.str(); }
  const std::string& path() const { return path_.str(); }
  std::size_t line() const { return line_; }

  /// `path.key` (or `key` at the root).
  std::string key_path(std::string_view key) const;

  /// The line of `key`, or of this map when `key` is empty or absent.
  source_loc where(std::string_view key = {}) const;

  /// An error about `key` (or the map itself when `key` is empty), for
  /// callers that validate a value further: `throw r.error("lanes", "...")`.
  [[nodiscard]] config_error error(std::string_view key,
                                   std::string message) const;

private:
  struct found {
    YAML::Node key;
    YAML::Node value;
  };
  std::optional<found> find(std::string_view key) const;
  template <class Allowed> void check_keys(const Allowed& allowed) const;
  /// The map's scalar keys with their nodes, in document order, made once
  /// when the reader is made and shared by its copies: a read is a scan of
  /// strings, not a walk of YAML nodes (a component's map is read by every
  /// node made from it: 1,024 PEs read one pe_gemm map 1,024 times).
  struct indexed {
    std::string key; ///< empty for a key that is not a scalar
    bool scalar;
    found at;
  };
  using key_index = std::vector<indexed>;
  static std::shared_ptr<const key_index> index_of(const YAML::Node& map);

  YAML::Node node_;
  std::shared_ptr<const key_index> index_;
  shared_text file_; ///< shared by the readers of one file
  shared_text path_; ///< shared by the copies of one reader
  std::size_t line_ = 0;
};

struct param_reader::entry {
  std::string key;
  source_loc where;
  param_reader value;
};

} // namespace kb
