#pragma once
// The engine's own statistics: every node reports them for each out link
// with bandwidth or credits that carried traffic (node::summarize), qualified
// by the link's destination node (ADR-0038).

#include "runtime/stat_decl.hpp"

namespace kb::link_stats {

inline constexpr stat_decl bytes =
  declare_stat("link", "link:{}.bytes", stat_unit::bytes, "bytes sent over the link");
inline constexpr stat_decl messages =
  declare_stat("link", "link:{}.messages", stat_unit::count, "messages sent over the link");
inline constexpr stat_decl busy_ps = declare_stat(
  "link", "link:{}.busy_ps", stat_unit::ps, "time the link was transferring (bytes / bandwidth)");

} // namespace kb::link_stats
