#pragma once
// The four placement arms (permute, fuse, retry, cost-based) and the
// arm-driven placement loop that the initial and cost-based rungs of the
// strategy ladder run. Each arm proposes one seat for the ready set; the
// cheapest legal proposal by the lexicographic cost vector is committed.

#include "runtime/schedule/modulo_state.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace kb::sched {

enum class arm : uint8_t { fuse, permute, retry, cost }; ///< tie-break order

struct arm_result {
  bool accepted = false;
  cost_vector cost = cost_vector::infinite();
  uint32_t op = 0;
  int64_t cycle = 0;
  std::optional<uint32_t> partner; ///< the fuse arm seats two ops at once
  arm which = arm::cost;
};

/// Seats the live ready ops greedily in every order (up to `budget` orders;
/// sampled deterministically when there are more) and proposes the first
/// seat of the order with the lowest total (pressure, delay).
arm_result try_permute(modulo_state& s, const std::vector<uint32_t>& live, uint32_t budget,
                       uint64_t step);
/// Two independent live ops using the same pools whose combined use fits
/// seated in one cycle.
arm_result try_fuse(modulo_state& s, const std::vector<uint32_t>& live);
/// The first dead ready op (program order) that now has a legal seat.
arm_result try_retry(modulo_state& s, const std::vector<uint32_t>& dead);
/// Every legal (op, cycle) of the live ops, the global minimum; ops with no
/// legal cycle are marked dead.
arm_result try_cost_based(modulo_state& s, const std::vector<uint32_t>& live);

struct placement_options {
  uint32_t permute_budget = 120;
  bool always_cost = false; ///< the cost-based rung: all four arms compete
};

/// List placement over the distance-0 order: no eviction; a group whose depth
/// blocks an op is reordered around it (once per op). True when all seated.
bool arm_placement(modulo_state& s, const placement_options& o);

} // namespace kb::sched
