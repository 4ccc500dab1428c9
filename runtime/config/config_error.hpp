#pragma once
// The one error type of configuration loading: every message names the file,
// the 1-based line and the dotted key path of the offending entry.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace kb {

/// Where a configuration entry was written: file (as given) and 1-based line
/// (0 = unknown).
struct source_loc {
  std::string file;
  std::size_t line = 0;

  /// `file:line`, or just `file` when the line is unknown.
  std::string str() const;
};

/// A bad configuration. `what()` reads
/// `topology.yaml:42: cube.pe_template.components.pe_gemm.impl: unknown impl
/// 'pe_gemm_v9' (known: pe_gemm_v1)`; the line is left out when unknown and the
/// key path when empty.
class config_error : public std::runtime_error {
public:
  config_error(source_loc where, std::string key_path, std::string message);

  const source_loc& where() const { return where_; }
  const std::string& key_path() const { return key_path_; }
  /// The message alone, without file, line and key path.
  const std::string& message() const { return message_; }

private:
  source_loc where_;
  std::string key_path_;
  std::string message_;
};

} // namespace kb
