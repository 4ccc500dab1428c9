#pragma once
// The summary's per-PE sections for a run of many PEs: one line per unit,
// link or command over all the PEs (and cubes) that ran, with the count, the least, the
// median and the most, and the PEs where the least and the most were. A
// 1,024-PE run's summary is then some 200 lines instead of 12,400; every
// figure of every PE stays in `--json`, and `--per-pe` prints them all.

#include "runtime/engine/simulation.hpp"
#include "runtime/report/pe_commands.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb {

/// A time in ps as the summary prints ns: "1234" or "1234.500".
std::string summary_ns(uint64_t ps);

/// A lane figure's lane and measure ("read.busy_ps" -> {"read", "busy_ps"});
/// nullopt for the other figures (links, commands, and names without a dot).
std::optional<std::pair<std::string_view, std::string_view>> lane_figure(std::string_view name);

/// Runs of more PEs than this print the grouped sections unless asked.
constexpr std::size_t summary_pe_lines = 16;

/// A node's PE prefix and its name within the PE ("sip0.cube1.pe7",
/// "pe_dma"), or nullopt for a node outside every PE.
std::optional<std::pair<std::string_view, std::string_view>> split_pe_node(std::string_view name);

/// The group a node's lines go in, and the node's place within it: a PE's
/// node "pe.pe_dma" at "sip0.cube1.pe7", a cube's "cube.xbar" at "sip0.cube1",
/// any other its own name at itself.
std::pair<std::string, std::string_view> group_of(std::string_view name);

/// Values of one figure over PEs, each with its PE.
struct spread {
  std::size_t count = 0;
  uint64_t min = 0, median = 0, max = 0, total = 0;
  std::string min_at, max_at; ///< the first PE (in run order) with each
};
spread spread_of(const std::vector<std::pair<uint64_t, std::string_view>>& values);

/// The grouped sections; `end_ps` is the simulated time (for utilisation).
struct pe_group_input {
  const run_result* result = nullptr;
  std::vector<std::string> pes; ///< the PEs that ran, in run order
  const std::vector<pe_commands>* commands = nullptr; ///< per PE, in run order
  uint64_t end_ps = 0;
};
void write_grouped_latency(std::ostream& out, const pe_group_input& in);
void write_grouped_units(std::ostream& out, const pe_group_input& in);
void write_grouped_intervals(std::ostream& out, const pe_group_input& in);
void write_grouped_stalls(std::ostream& out, const pe_group_input& in);
void write_grouped_links(std::ostream& out, const pe_group_input& in);

} // namespace kb
