#include "runtime/schedule/modulo_table.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <new>

namespace kb::sched {

namespace {

/// Calls fn(word, mask) for the words of the linear slot range [a, b).
template <class F>
void for_words(uint32_t a, uint32_t b, F&& fn) {
  if (a >= b)
    return;
  const uint32_t wa = a / 64, wb = (b - 1) / 64;
  for (uint32_t w = wa; w <= wb; ++w) {
    uint64_t m = ~uint64_t{0};
    if (w == wa)
      m &= ~uint64_t{0} << (a % 64);
    if (w == wb && b % 64 != 0)
      m &= ~uint64_t{0} >> (64 - b % 64);
    fn(w, m);
  }
}

/// The cyclic range [start, start + len) as up to two linear ranges, in run
/// order: {a0, b0} then {0, b1}.
struct split {
  uint32_t a0, b0, b1;
};
split split_range(uint32_t start, uint32_t len, uint32_t ii) {
  const uint32_t end = start + len;
  if (end <= ii)
    return {start, end, 0};
  return {start, ii, end - ii};
}

} // namespace

footprints compile_footprints(const problem& p) {
  footprints out;
  for (const auto& pool : p.pools)
    out.capacity.push_back(pool.capacity);
  out.ops.resize(p.ops.size());
  for (std::size_t v = 0; v < p.ops.size(); ++v) {
    const auto& res = p.ops[v].reservation;
    auto& f = out.ops[v];
    f.span = p.ops[v].span();
    // (pool, count) -> the run ending at row i; a row holds a few uses, so
    // these are short lists, reused across rows.
    using run_end = std::pair<std::pair<uint32_t, uint32_t>, std::size_t>;
    std::vector<run_end> open, next;
    std::vector<uint32_t> seen;
    const auto find = [](std::vector<run_end>& in, std::pair<uint32_t, uint32_t> key) {
      return std::find_if(in.begin(), in.end(), [&](const run_end& r) { return r.first == key; });
    };
    for (uint32_t i = 0; i < res.size(); ++i) {
      next.clear();
      seen.clear();
      for (const auto& u : res[i]) {
        if (u.count == 0)
          continue;
        if (std::find(seen.begin(), seen.end(), u.pool) != seen.end())
          f.stacked = true;
        seen.push_back(u.pool);
        const auto key = std::make_pair(u.pool, u.count);
        const auto it = find(open, key);
        const auto in_next = find(next, key);
        std::size_t run = f.runs.size();
        if (it != open.end() && in_next == next.end()) {
          run = it->second;
          ++f.runs[run].len;
        } else {
          f.runs.push_back({u.pool, i, 1, u.count});
        }
        if (in_next != next.end())
          in_next->second = run;
        else
          next.push_back({key, run});
        f.pools.push_back(u.pool);
        f.flat_pressure = f.flat_pressure && u.count == p.pools[u.pool].capacity;
      }
      std::swap(open, next);
    }
    for (const auto& h : p.ops[v].holds) {
      if (h.count == 0 || h.cycles == 0)
        continue;
      // A hold on a pool the op already uses may stack on it: slow path.
      f.stacked = f.stacked || std::find(f.pools.begin(), f.pools.end(), h.pool) != f.pools.end();
      f.runs.push_back({h.pool, 0, h.cycles, h.count});
      f.pools.push_back(h.pool);
      f.flat_pressure = f.flat_pressure && h.count == p.pools[h.pool].capacity;
    }
    for (const auto& r : f.runs)
      f.least_pressure += uint64_t{r.len} * (uint64_t{r.count} * 1000 / p.pools[r.pool].capacity);
    std::sort(f.pools.begin(), f.pools.end());
    f.pools.erase(std::unique(f.pools.begin(), f.pools.end()), f.pools.end());
  }
  return out;
}

modulo_table::modulo_table(const std::vector<uint32_t>& capacity, uint32_t ii)
  : ii_(ii), words_((ii + 63) / 64), capacity_(capacity) {
  std::size_t total = 0;
  for (uint32_t c : capacity) {
    base_.push_back(total);
    total += c * words_;
    permille_base_.push_back(permille_.size());
    for (uint64_t u = 0; u <= 2 * uint64_t{c}; ++u)
      permille_.push_back(u * 1000 / c);
  }
  bits_.reset(
    static_cast<uint64_t*>(std::calloc(std::max<std::size_t>(total, 1), sizeof(uint64_t))));
  if (!bits_)
    throw std::bad_alloc();
}

uint32_t modulo_table::usage(uint32_t pool, uint32_t cell) const {
  uint32_t n = 0;
  for (uint32_t j = 0; j < capacity_[pool]; ++j)
    n += (plane(pool, j)[cell / 64] >> (cell % 64)) & 1u;
  return n;
}

bool modulo_table::fits_slow(uint32_t pool, uint32_t start, uint32_t len,
                             uint32_t count) const {
  if (count == 0 || len == 0)
    return true;
  const uint32_t cap = capacity_[pool];
  if (count > cap)
    return false;
  const uint64_t* pl = plane(pool, cap - count);
  const split s = split_range(start, len, ii_);
  bool clear = true;
  for_words(s.a0, s.b0, [&](uint32_t w, uint64_t m) { clear = clear && (pl[w] & m) == 0; });
  if (clear)
    for_words(0, s.b1, [&](uint32_t w, uint64_t m) { clear = clear && (pl[w] & m) == 0; });
  return clear;
}

int64_t modulo_table::last_full_slow(uint32_t pool, uint32_t start, uint32_t len,
                                uint32_t count) const {
  if (count == 0 || len == 0)
    return -1;
  const uint32_t cap = capacity_[pool];
  if (count > cap)
    return static_cast<int64_t>(len) - 1;
  const uint64_t* pl = plane(pool, cap - count);
  const split s = split_range(start, len, ii_);
  int64_t cell = -1;
  for_words(0, s.b1, [&](uint32_t w, uint64_t m) {
    if (const uint64_t x = pl[w] & m)
      cell = int64_t{w} * 64 + 63 - countl_zero(x);
  });
  if (cell >= 0)
    return cell + (ii_ - s.a0);
  for_words(s.a0, s.b0, [&](uint32_t w, uint64_t m) {
    if (const uint64_t x = pl[w] & m)
      cell = int64_t{w} * 64 + 63 - countl_zero(x);
  });
  return cell >= 0 ? cell - s.a0 : -1;
}

int64_t modulo_table::first_full_slow(uint32_t pool, uint32_t start, uint32_t len,
                                 uint32_t count) const {
  if (count == 0 || len == 0)
    return -1;
  const uint32_t cap = capacity_[pool];
  if (count > cap)
    return 0;
  const uint64_t* pl = plane(pool, cap - count);
  const split s = split_range(start, len, ii_);
  int64_t cell = -1;
  for_words(s.a0, s.b0, [&](uint32_t w, uint64_t m) {
    if (const uint64_t x = pl[w] & m; x && cell < 0)
      cell = int64_t{w} * 64 + countr_zero(x);
  });
  if (cell >= 0)
    return cell - s.a0;
  for_words(0, s.b1, [&](uint32_t w, uint64_t m) {
    if (const uint64_t x = pl[w] & m; x && cell < 0)
      cell = int64_t{w} * 64 + countr_zero(x);
  });
  return cell >= 0 ? cell + (ii_ - s.a0) : -1;
}

uint64_t modulo_table::pressure_slow(uint32_t pool, uint32_t start, uint32_t len,
                                uint32_t count) const {
  const uint32_t cap = capacity_[pool];
  const split s = split_range(start, len, ii_);
  // at_least[k]: slots using more than k − 1 units (k ≥ 1); at_least[0] = len.
  uint64_t total = 0;
  uint64_t above = len; // slots with use ≥ k, for k = 0
  for (uint32_t k = 0; k <= cap; ++k) {
    uint64_t next = 0; // slots with use ≥ k + 1
    if (k < cap) {
      const uint64_t* pl = plane(pool, k);
      for_words(s.a0, s.b0, [&](uint32_t w, uint64_t m) { next += popcount(pl[w] & m); });
      for_words(0, s.b1, [&](uint32_t w, uint64_t m) { next += popcount(pl[w] & m); });
    }
    total += (above - next) * ((uint64_t{k} + count) * 1000 / cap);
    above = next;
  }
  return total;
}

void modulo_table::add_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) {
  if (count == 0 || len == 0)
    return;
  assert(fits(pool, start, len, count));
  const uint32_t cap = capacity_[pool];
  const split s = split_range(start, len, ii_);
  auto one = [&](uint32_t w, uint64_t m) {
    for (uint32_t j = cap; j-- > count;) {
      uint64_t& x = plane(pool, j)[w];
      x = (x & ~m) | (plane(pool, j - count)[w] & m);
    }
    for (uint32_t j = 0; j < count && j < cap; ++j)
      plane(pool, j)[w] |= m;
  };
  for_words(s.a0, s.b0, one);
  for_words(0, s.b1, one);
}

void modulo_table::remove_slow(uint32_t pool, uint32_t start, uint32_t len, uint32_t count) {
  if (count == 0 || len == 0)
    return;
  const uint32_t cap = capacity_[pool];
  const split s = split_range(start, len, ii_);
  auto one = [&](uint32_t w, uint64_t m) {
    for (uint32_t j = 0; j < cap; ++j) {
      uint64_t& x = plane(pool, j)[w];
      const uint64_t from = j + count < cap ? plane(pool, j + count)[w] : 0;
      x = (x & ~m) | (from & m);
    }
  };
  for_words(s.a0, s.b0, one);
  for_words(0, s.b1, one);
}

} // namespace kb::sched
