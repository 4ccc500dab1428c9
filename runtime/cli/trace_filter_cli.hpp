#pragma once
// --trace-select, --trace-window and --trace-kinds (`kernbench run` and
// `kernbench trace convert`): checked and turned into a trace_filter
// (runtime/trace/trace_filter.hpp).

#include "runtime/trace/trace_filter.hpp"

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace kb {

struct trace_filter_args {
  std::vector<std::string> select; ///< node globs, each maybe a comma list
  std::string window;              ///< "T0:T1"
  std::string kinds;               ///< "stages,events,hops"
  bool window_given = false, kinds_given = false; ///< even with an empty value

  /// The first of the options given ("--trace-select", ...); empty if none.
  std::string first_given() const;
};

/// Adds the three options to `cmd` (in group `group`).
void add_trace_filter_options(CLI::App& cmd, trace_filter_args& a,
                              const std::string& group);

/// The filter the options ask for; nullopt when none is given. Without
/// --trace-kinds the kinds are stages, events, and hops if `hops`; `hops`
/// also adds hops to a --trace-kinds list (run --trace-hops). Throws
/// std::invalid_argument naming the option for an empty pattern, a window
/// that is not T0:T1 with units or ends before it starts, or an unknown kind.
std::optional<trace_filter> parse_trace_filter(const trace_filter_args& a,
                                               bool hops);

} // namespace kb
