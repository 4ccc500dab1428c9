#pragma once
// Shared helpers of the config tests: where the data lives, the kind catalog
// of the default topology, and catching config errors as text.

#include <ostream>
#include <string>
#include <string_view>

#include "runtime/config/config_error.hpp"
#include "runtime/config/impl_doc.hpp"
#include "runtime/sim_time.hpp"

namespace kb::test {

/// The source tree: $KB_SOURCE_DIR (set by CTest), else the configure-time
/// path.
std::string source_dir();

/// `tests/config/data/<name>` in the source tree.
std::string data_path(std::string_view name);

/// `config/<name>` in the source tree.
std::string config_path(std::string_view name);

/// A hand-written catalog of the implementations the default topology uses
/// (and hbm_ctrl_channels_v1), with the DESIGN §4 defaults. pe_gemm's
/// mac_rows and mac_cols are required here.
impl_catalog test_catalog();

/// The 1-based number of the first line of `path` that contains `text`
/// (0 if none), so tests on shipped files survive edits above the line.
std::size_t line_containing(const std::string& path, std::string_view text);

/// Runs `f`; returns the `what()` of the config_error it throws, or a marker
/// that no error was thrown.
template <class F> std::string config_error_of(F&& f) {
  try {
    f();
  } catch (const config_error& e) {
    return e.what();
  }
  return "<no config_error thrown>";
}

} // namespace kb::test

namespace kb {
// Readable values in GoogleTest failure messages.
inline void PrintTo(SimTime t, std::ostream* os) {
  *os << t.ps() << " ps";
}
inline void PrintTo(Cycles c, std::ostream* os) {
  *os << c.count() << " cycles";
}
inline void PrintTo(Bandwidth b, std::ostream* os) {
  *os << b.mbps << " MB/s";
}
} // namespace kb
