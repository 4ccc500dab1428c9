#pragma once
// A run's figures grouped over its PEs (and cubes): one row per unit lane,
// link or command over all the PEs that ran, with the count, the least, the
// median, the most and the total, and the PEs where the least and the most
// were. A 1,024-PE run's summary is then some 200 lines instead of 12,400,
// and its `--json` holds these groups instead of every PE's figures
// (`--per-pe` keeps them all: docs/results-schema.md).

#include "runtime/engine/simulation.hpp"
#include "runtime/report/pe_commands.hpp"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb {

/// A time in ps as the summary prints ns: "1234" or "1234.500".
std::string summary_ns(uint64_t ps);

/// The declared measures of one unit lane (lane_stats, ADR-0038). An HBM
/// channel's busy time is the busy time of lane `ch<c>` of its controller.
struct lane_figures {
  uint64_t busy = 0, stall = 0, wait = 0, stages = 0, bytes = 0;
  bool has_busy = false;
};

/// The lanes of a node by lane name (sorted), read from its declared lane
/// statistics.
std::map<std::string, lane_figures> lanes_of(const node_summary& n);

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

/// What the grouped sections are made of.
struct pe_group_input {
  const run_result* result = nullptr;
  const std::vector<pe_commands>* commands = nullptr; ///< per PE that ran, in run order
};

/// Command i of every PE that issued one (the PEs' i-th commands are one
/// group: the built-in driver issues the same list on every PE).
struct command_group {
  uint64_t id = 0;        ///< 1-based command number
  std::string what;       ///< the first PE's command in words
  uint8_t call = 0;       ///< the first PE's command_call
  spread latency, done, tiles;
  uint64_t flops = 0, bytes = 0; ///< summed over the PEs
};

/// A unit lane over every node of its group ("pe.pe_dma/read" over the PEs,
/// "cube.hbm_ctrl/..." over the cubes; a node outside both is its own).
struct lane_group {
  std::string lane;
  spread busy, stall, wait;
  uint64_t stages = 0, bytes = 0; ///< summed
};

/// The simulated steady-state interval of command `id` over the PEs whose
/// body (tiles) and predicted II agree.
struct interval_group {
  uint64_t id = 0, body_tiles = 0, predicted_ii_ps = 0;
  spread simulated; ///< 0 for a PE with fewer than 3 bodies
};

/// Links from nodes of group `src` to nodes of group `dst`.
struct link_group {
  std::string src, dst;
  spread bytes, busy;
};

/// Where the kernels' time went, over the PEs that ran one.
struct kernel_group {
  uint64_t finished = 0; ///< PEs whose kernel returned
  spread span;           ///< start -> return (count: the PEs that ran a kernel)
  spread blocked_load, wait, tcm_wait, computing;
};

/// The run's figures grouped over its PEs (and cubes): the summary of a run
/// of many PEs, and the JSON's `groups`.
struct pe_group_summary {
  std::size_t pes = 0;
  std::vector<command_group> commands;
  std::vector<lane_group> lanes;
  std::vector<interval_group> intervals;
  spread feeder_stall;    ///< PE_SCHEDULER's feeder.stall_ps, per PE
  uint64_t tiles_fed = 0; ///< summed
  std::vector<link_group> links;
  kernel_group kernel;
};

/// (On up to `threads` threads; the same summary on any number.)
pe_group_summary group_pes(const pe_group_input& in, size_t threads = 1);
kernel_group group_kernel_time(const std::vector<pe_commands>& pes);

/// The summary's grouped sections; `end_ps` is the simulated time (for
/// utilisation).
void write_grouped_latency(std::ostream& out, const pe_group_summary& g);
void write_grouped_units(std::ostream& out, const pe_group_summary& g, uint64_t end_ps);
void write_grouped_intervals(std::ostream& out, const pe_group_summary& g);
void write_grouped_stalls(std::ostream& out, const pe_group_summary& g);
void write_grouped_links(std::ostream& out, const pe_group_summary& g, uint64_t end_ps);

} // namespace kb
