#pragma once
// The modulo reservation table as bit rows, and the ops' reservations as runs
// (ADR-0007). An op's reservation is kept as runs: a pool used with the same
// count over consecutive cycles. The table keeps, per pool, `capacity` bit
// planes of II bits each, thermometer-coded: bit c of plane j is set when
// more than j units of the pool are in use in slot c. A run fits when plane
// (capacity − count) is clear over its slots, which is a test of whole 64-bit
// words; so a probe costs runs × ⌈length / 64⌉ word operations, not cycles.

#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <vector>

namespace kb::sched {

/// `count` units of `pool` over cycles [offset, offset + len) of the op.
struct run {
  uint32_t pool = 0;
  uint32_t offset = 0;
  uint32_t len = 0;
  uint32_t count = 0;
};

struct op_footprint {
  std::vector<run> runs;      ///< in reservation-entry order, merged over cycles
  std::vector<uint32_t> pools; ///< pools used, sorted, unique
  uint32_t span = 0;          ///< reservation length in cycles
  bool stacked = false;       ///< one cycle lists one pool twice
  /// Every run takes its whole pool, so every legal seat has the same slot
  /// pressure (capacity·1000/capacity per cycle); the earliest one is cheapest.
  bool flat_pressure = true;
};

/// The problem's reservations as runs; built once per problem.
struct footprints {
  std::vector<op_footprint> ops;
  std::vector<uint32_t> capacity; ///< per pool
};
footprints compile_footprints(const problem& p);

class modulo_table {
public:
  modulo_table() = default;
  modulo_table(const std::vector<uint32_t>& capacity, uint32_t ii);

  uint32_t ii() const { return ii_; }
  /// Units of `pool` in use in slot `cell`.
  uint32_t usage(uint32_t pool, uint32_t cell) const;
  /// True when `count` more units fit in every slot of [start, start + len)
  /// (mod II). Needs len ≤ II.
  bool fits(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const {
    // The common case inline: one word of the one plane that decides.
    const uint32_t end = start + len;
    if (count == 0 || len == 0 || count > capacity_[pool] || end > ii_ ||
        start / 64 != (end - 1) / 64)
      return fits_slow(pool, start, len, count);
    const uint64_t m = (~uint64_t{0} >> (64 - len)) << (start % 64);
    return (plane(pool, capacity_[pool] - count)[start / 64] & m) == 0;
  }
  /// Offsets (0-based within the range) of the last and first slot that has
  /// no room for `count`; −1 when every slot has room.
  int64_t last_full(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const;
  int64_t first_full(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const;
  /// Σ over the slots of ⌊(use + count)·1000 / capacity⌋: the slot pressure.
  uint64_t pressure(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const;
  /// Adds or removes `count` units on the range. Adding needs room (fits).
  void add(uint32_t pool, uint32_t start, uint32_t len, uint32_t count);
  void remove(uint32_t pool, uint32_t start, uint32_t len, uint32_t count);

private:
  bool fits_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const;
  uint64_t* plane(uint32_t pool, uint32_t j) { return &bits_[base_[pool] + j * words_]; }
  const uint64_t* plane(uint32_t pool, uint32_t j) const {
    return &bits_[base_[pool] + j * words_];
  }

  uint32_t ii_ = 0;
  std::size_t words_ = 0;
  std::vector<uint32_t> capacity_;
  std::vector<std::size_t> base_;
  std::vector<uint64_t> bits_;
};

} // namespace kb::sched
