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
#include <cstdlib>
#include <memory>
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
  /// Its slot pressure on empty rows, Σ len·⌊count·1000/capacity⌋: no seat
  /// costs less, so the permute arm prunes orders by it.
  uint64_t least_pressure = 0;
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
    uint32_t w;
    uint64_t m;
    if (count == 0 || count > capacity_[pool] || !one_word(start, len, w, m))
      return fits_slow(pool, start, len, count);
    return (plane(pool, capacity_[pool] - count)[w] & m) == 0;
  }
  /// Offsets (0-based within the range) of the last and first slot that has
  /// no room for `count`; −1 when every slot has room.
  int64_t last_full(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const {
    uint32_t w;
    uint64_t m;
    if (count == 0 || count > capacity_[pool] || !one_word(start, len, w, m))
      return last_full_slow(pool, start, len, count);
    const uint64_t x = plane(pool, capacity_[pool] - count)[w] & m;
    return x ? int64_t{63 - countl_zero(x)} - start % 64 : -1;
  }
  int64_t first_full(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const {
    uint32_t w;
    uint64_t m;
    if (count == 0 || count > capacity_[pool] || !one_word(start, len, w, m))
      return first_full_slow(pool, start, len, count);
    const uint64_t x = plane(pool, capacity_[pool] - count)[w] & m;
    return x ? int64_t{countr_zero(x)} - start % 64 : -1;
  }
  /// Σ over the slots of ⌊(use + count)·1000 / capacity⌋: the slot pressure.
  uint64_t pressure(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const {
    uint32_t w;
    uint64_t m;
    if (!one_word(start, len, w, m))
      return pressure_slow(pool, start, len, count);
    const uint32_t cap = capacity_[pool];
    const uint64_t* permille = &permille_[permille_base_[pool] + count];
    uint64_t total = 0, above = len;
    for (uint32_t k = 0; k <= cap; ++k) { // slots using exactly k units
      const uint64_t next = k < cap ? popcount(plane(pool, k)[w] & m) : 0;
      total += (above - next) * permille[k];
      above = next;
    }
    return total;
  }
  /// Adds or removes `count` units on the range. Adding needs room (fits).
  void add(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) {
    uint32_t w;
    uint64_t m;
    if (count == 0 || count > capacity_[pool] || !one_word(start, len, w, m))
      return add_slow(pool, start, len, count);
    for (uint32_t j = capacity_[pool]; j-- > count;) { // plane j takes plane j − count
      uint64_t& x = plane(pool, j)[w];
      x = (x & ~m) | (plane(pool, j - count)[w] & m);
    }
    for (uint32_t j = 0; j < count; ++j)
      plane(pool, j)[w] |= m;
  }
  void remove(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) {
    uint32_t w;
    uint64_t m;
    if (count == 0 || count > capacity_[pool] || !one_word(start, len, w, m))
      return remove_slow(pool, start, len, count);
    const uint32_t cap = capacity_[pool];
    for (uint32_t j = 0; j < cap; ++j) { // plane j takes plane j + count
      uint64_t& x = plane(pool, j)[w];
      const uint64_t from = j + count < cap ? plane(pool, j + count)[w] : 0;
      x = (x & ~m) | (from & m);
    }
  }

  /// Bits set (inline: the build targets no popcount instruction).
  static uint32_t popcount(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return static_cast<uint32_t>((x * 0x0101010101010101ull) >> 56);
  }

private:
  static uint32_t countl_zero(uint64_t x) { return static_cast<uint32_t>(__builtin_clzll(x)); }
  static uint32_t countr_zero(uint64_t x) { return static_cast<uint32_t>(__builtin_ctzll(x)); }
  /// True when [start, start + len) lies in one word w (no wrap), mask m.
  bool one_word(uint32_t start, uint32_t len, uint32_t& w, uint64_t& m) const {
    const uint32_t end = start + len;
    if (len == 0 || end > ii_ || start / 64 != (end - 1) / 64)
      return false;
    w = start / 64;
    m = (~uint64_t{0} >> (64 - len)) << (start % 64);
    return true;
  }
  bool fits_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const;
  int64_t last_full_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const;
  int64_t first_full_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const;
  uint64_t pressure_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) const;
  void add_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count);
  void remove_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count);
  uint64_t* plane(uint32_t pool, uint32_t j) { return &bits_[base_[pool] + j * words_]; }
  const uint64_t* plane(uint32_t pool, uint32_t j) const {
    return &bits_[base_[pool] + j * words_];
  }

  uint32_t ii_ = 0;
  std::size_t words_ = 0;
  std::vector<uint32_t> capacity_;
  std::vector<std::size_t> base_;
  /// The planes, from calloc rather than a vector: a long II (a body of 2M
  /// slots) makes a table of megabytes whose untouched pages (pools the body
  /// barely uses) calloc need neither clear nor map.
  struct free_bits {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint64_t[], free_bits> bits_;
  /// ⌊u·1000 / capacity⌋ for u = 0 … 2·capacity, per pool from permille_base_.
  std::vector<uint64_t> permille_;
  std::vector<std::size_t> permille_base_;
};

} // namespace kb::sched
