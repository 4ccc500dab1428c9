#pragma once
// ScheduleAnalysis: the one output contract of both generators (DESIGN.md §6).
// (stage, order) is the public ordering key; cycle, slot and depth are filled
// only by the modulo path.

#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::sched {

enum class strategy : uint8_t { automatic, serial, cost };

std::string_view to_string(strategy s);
/// Parses `auto`, `serial` or `cost`; nullopt otherwise.
std::optional<strategy> parse_strategy(std::string_view text);

/// Where one op landed.
struct op_seat {
  uint32_t stage = 0; ///< (t − t_min) div II; 0 on the serial path
  uint32_t order = 0; ///< position in the emitted order, 0-based
  std::optional<int64_t> cycle;  ///< start cycle t (modulo path)
  std::optional<uint32_t> slot;  ///< t mod II (modulo path)
  std::optional<uint32_t> depth; ///< t div II (modulo path)
};

struct diagnostic {
  enum class level : uint8_t { note, warning, error };
  level severity = level::note;
  std::string message;
};

std::string_view to_string(diagnostic::level l);

/// Counters of the modulo search: which gates fired, which arms won, which
/// rung of the strategy ladder succeeded. Deterministic, so tests pin them.
struct search_stats {
  uint64_t g1_hold_over = 0;     ///< G1: op held over to the next attempt
  uint64_t g2_mark_dead = 0;     ///< G2: op marked dead for this attempt
  uint64_t g3_bump_cycle = 0;    ///< G3: seat bumped to the next cycle
  uint64_t g4_reorder_group = 0; ///< G4: group reordered around the op
  uint64_t arm_permute = 0;      ///< seats won by each placement arm
  uint64_t arm_fuse = 0;
  uint64_t arm_retry = 0;
  uint64_t arm_cost = 0;
  uint64_t evictions = 0;   ///< ops unseated by iterative refinement
  uint64_t ii_attempts = 0; ///< IIs tried
  uint64_t clears = 0;      ///< clear-and-retry tails run
  uint64_t exact_refuted = 0; ///< IIs the exact packing search proved infeasible
  uint64_t exact_nodes = 0;   ///< nodes of the exact packing search, all IIs
  std::string rung;         ///< ladder rung that produced the schedule
};

struct schedule_analysis {
  strategy used = strategy::serial; ///< serial or cost, never automatic
  std::string selected_because;     ///< the selector rule that chose `used`
  bool success = false;
  std::optional<uint32_t> ii; ///< initiation interval (modulo path)
  std::optional<uint32_t> mii; ///< max(res_mii, rec_mii); nullopt if infinite
  uint32_t res_mii = 0;
  std::optional<uint32_t> rec_mii; ///< nullopt on a zero-distance cycle
  std::vector<op_seat> seats;      ///< one per op, in program order
  std::vector<edge_spec> edges;    ///< the dependence edges scheduled against
  std::vector<diagnostic> diagnostics;
  search_stats stats;

  /// Ops in emitted order (by `order`).
  std::vector<uint32_t> emitted_order() const;
  void note(diagnostic::level l, std::string message);
};

} // namespace kb::sched
