#pragma once
// Declared statistics (ADR-0038): every figure a node reports at the end of a
// run is an instance of a statistic declared once, where its meaning is
// defined, with its name, unit and meaning (as SST elements document their
// statistics). A figure then carries the statistic's id and a qualifier
// (which lane, command, channel or link it is of), so that the report and
// the JSON select figures by declaration, never by decoding their names.
//
//   inline constexpr stat_decl lane_busy_ps =
//     declare_stat("lane", "{}.busy_ps", stat_unit::ps, "time the lane served a stage");
//   add_figure(lane_busy_ps, "read", 1234);        // named "read.busy_ps"
//   if (f.is(lane_busy_ps)) lane = f.qualifier;   // in the report

#include <cstdint>
#include <string>
#include <string_view>

namespace kb {

/// What a statistic counts.
enum class stat_unit : uint8_t {
  ps,     ///< simulated picoseconds (a duration or a point in time)
  bytes,
  count,
  flag,   ///< 0 or 1
  number, ///< an index or id (e.g. a node id), no quantity
};

constexpr std::string_view to_string(stat_unit u) {
  switch (u) {
  case stat_unit::ps:
    return "ps";
  case stat_unit::bytes:
    return "bytes";
  case stat_unit::count:
    return "count";
  case stat_unit::flag:
    return "flag";
  case stat_unit::number:
    return "number";
  }
  return "?";
}

/// FNV-1a (32 bit) of `scope`, '/', `pattern`: a statistic's id, the same in
/// every process of a build and in every build that declares it alike.
constexpr uint32_t stat_id(std::string_view scope, std::string_view pattern) {
  uint32_t h = 2166136261u;
  auto mix = [&h](char c) {
    h ^= static_cast<uint8_t>(c);
    h *= 16777619u;
  };
  for (char c : scope)
    mix(c);
  mix('/');
  for (char c : pattern)
    mix(c);
  return h;
}

/// One declared statistic. `pattern` is its figures' name, in which `{}`
/// stands for the qualifier when the statistic has one figure per lane,
/// command, channel or link ("{}.busy_ps", "cmd{}.issue_ps",
/// "link:{}.bytes"); without `{}` a node reports it once ("tiles_fed").
/// `scope` says who declares it ("lane", "link", "memory", "pe_cpu", ...):
/// two statistics may share a pattern in different scopes.
struct stat_decl {
  std::string_view scope;
  std::string_view pattern;
  stat_unit unit = stat_unit::count;
  std::string_view doc;
  uint32_t id = 0;

  constexpr bool qualified() const { return pattern.find("{}") != std::string_view::npos; }
  /// The name of the figure of qualifier `q` (the pattern, `{}` replaced).
  std::string name_of(std::string_view q) const;
};

/// `pattern` with its `{}` replaced by `q` ("{}.busy_ps", "read":
/// "read.busy_ps"); a pattern without `{}` is the name.
inline std::string stat_name(std::string_view pattern, std::string_view q) {
  const auto at = pattern.find("{}");
  if (at == std::string_view::npos)
    return std::string(pattern);
  std::string s;
  s.reserve(pattern.size() + q.size());
  s.append(pattern.substr(0, at)).append(q).append(pattern.substr(at + 2));
  return s;
}

inline std::string stat_decl::name_of(std::string_view q) const { return stat_name(pattern, q); }

constexpr stat_decl declare_stat(std::string_view scope, std::string_view pattern,
                                 stat_unit unit, std::string_view doc) {
  return {scope, pattern, unit, doc, stat_id(scope, pattern)};
}

} // namespace kb
