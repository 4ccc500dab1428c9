#pragma once
// The one error type of configuration loading: every message names the file,
// the 1-based line and the dotted key path of the offending entry.

#include <cstddef>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

namespace kb {

/// An immutable text that its copies share: a file name that every node and
/// link of a machine repeats is one allocation, not one per copy (a 16,384-PE
/// machine read from a path of 57 characters held 57 MiB more than from one
/// of 13 before; issue 31).
class shared_text {
public:
  shared_text() = default;
  shared_text(std::string text) // NOLINT: a text converts implicitly
    : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  shared_text(const char* text) : shared_text(std::string(text)) {} // NOLINT

  const std::string& str() const {
    static const std::string none;
    return text_ ? *text_ : none;
  }
  operator const std::string&() const { return str(); } // NOLINT
  bool empty() const { return str().empty(); }
  friend bool operator==(const shared_text& a, const shared_text& b) { return a.str() == b.str(); }
  friend std::ostream& operator<<(std::ostream& out, const shared_text& t) { return out << t.str(); }

private:
  std::shared_ptr<const std::string> text_;
};

/// Where a configuration entry was written: file (as given) and 1-based line
/// (0 = unknown).
struct source_loc {
  shared_text file;
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
