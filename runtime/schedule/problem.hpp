#pragma once
// The scheduling problem: resource pools, ops in program order with their
// reservation tables and constraints, and dependence edges (seed 003,
// DESIGN.md §6). Plain data; `check_problem` verifies it apart from any
// algorithm.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kb::sched {

/// A resource pool: `capacity` identical units usable in every cycle.
struct pool_spec {
  std::string name;
  uint32_t capacity = 1;
};

/// Use of one pool during one cycle of an op's reservation table.
struct pool_use {
  uint32_t pool = 0; ///< index into `problem::pools`
  uint32_t count = 0;
};

/// A long use of one pool from the op's start: `count` units of `pool` in
/// each of cycles [0, cycles). The same as that many reservation entries, kept
/// compact: a stage that holds its unit for thousands of cycles costs one
/// hold, not thousands of entries (ADR-0007). Built in code only.
struct pool_hold {
  uint32_t pool = 0;
  uint32_t count = 0;
  uint32_t cycles = 0;
};

/// One op of the loop body. `reservation[i]` is its use of each pool at cycle
/// offset i from its start (an empty entry uses nothing in that cycle);
/// `holds` add uses from cycle 0 on.
struct op_spec {
  std::string name;
  int64_t latency = 1; ///< cycles until its results are available (≥ 0)
  std::vector<std::vector<pool_use>> reservation;
  std::vector<pool_hold> holds;
  std::optional<uint32_t> max_depth; ///< deepest stage (t div II) allowed
  std::optional<int64_t> gid;        ///< own group id (same-depth groups)
  std::optional<int64_t> leader_gid; ///< group led by this gid (union-find)
  std::size_t line = 0;              ///< 1-based source line, 0 = unknown

  /// True when the op uses any pool in any cycle.
  bool bears_resources() const;
  /// Cycles from its start to the end of its last use (reservation or hold).
  uint32_t span() const;
  /// Its use of `pool` summed over all cycles.
  uint64_t total_use(uint32_t pool) const;
};

/// A dependence: `to` may start `latency − distance·II` cycles after `from`.
struct edge_spec {
  uint32_t from = 0;
  uint32_t to = 0;
  int64_t latency = 0;   ///< defaults to the source op's latency
  uint32_t distance = 0; ///< loop-carried iteration distance
  std::size_t line = 0;
};

struct problem {
  std::string source; ///< file name for messages ("" when built in code)
  std::vector<pool_spec> pools;
  std::vector<op_spec> ops; ///< in program order
  std::vector<edge_spec> edges;
  bool force_serial_execution = false;
  uint32_t serial_threshold = 8; ///< fewer ops than this → serial

  /// Index of the op named `name`; nullopt when there is none.
  std::optional<uint32_t> find_op(std::string_view name) const;
  /// Index of the pool named `name`; nullopt when there is none.
  std::optional<uint32_t> find_pool(std::string_view name) const;
  /// `a -> b (distance d)` for messages.
  std::string describe(const edge_spec& e) const;
};

/// Appends every field of `p` to `out` as bytes: two problems have the same
/// key exactly when they are the same problem (so a schedule generated for
/// one is the other's; runtime/predict/schedule_memo).
void append_key(std::string& out, const problem& p);

/// A problem that no schedule can satisfy or that is malformed; the message
/// names the op or edge (and the source line when known).
class problem_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The longest II or schedule length, in cycles, that the generators and
/// their results represent (II, MII and stages are 32-bit; `ii + 1` must not
/// wrap): 2^31 − 1.
inline constexpr uint64_t max_schedule_cycles = (uint64_t{1} << 31) - 1;

/// The loop body run op after op, each for max(1, its span, its longest
/// outgoing edge latency), in cycles: an II at which a schedule always
/// exists, so a bound on MII (ResMII and every recurrence) and on the serial
/// schedule's length. Saturates instead of wrapping.
uint64_t serial_length(const problem& p);

/// Checks what every algorithm relies on: unique non-empty op names, edges
/// between existing ops, latencies ≥ 0, capacities ≥ 1, pool indices in range,
/// no op using more of a pool in one cycle than the pool has (no II could
/// seat it), and a `serial_length` of at most `max_schedule_cycles` (so no
/// II, MII or schedule length wraps). Throws `problem_error`.
void check_problem(const problem& p);

} // namespace kb::sched
