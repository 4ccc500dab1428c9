#pragma once
// Random scheduling problems for the property test and the benchmark:
// program order, forward edges, loop-carried back edges with distance ≥ 1 and
// multi-cycle reservations. The same seed gives the same problem.

#include "runtime/schedule/problem.hpp"

#include <cstdint>

namespace kb::sched {

struct random_problem_options {
  uint32_t min_ops = 4;
  uint32_t max_ops = 24;
  uint32_t max_pools = 4;
  uint32_t max_capacity = 3;
  uint32_t max_reservation = 4; ///< cycles
  uint32_t max_latency = 6;
  double back_edge_rate = 0.15;   ///< per op: a loop-carried edge to an earlier op
  bool constraints = false;       ///< also draw max_depth and same-depth groups
};

problem random_problem(uint64_t seed, const random_problem_options& o = {});

} // namespace kb::sched
