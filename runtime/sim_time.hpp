#pragma once
// Virtual time: picoseconds (SimTime) and clock cycles (Cycles) are distinct
// strong types. Converting between them needs a `sim_clock`. No floating point.

#include <compare>
#include <cstdint>
#include <limits>
#include <optional>

namespace kb {

/// A point or span of virtual time in picoseconds.
class SimTime {
public:
  constexpr SimTime() = default;
  constexpr explicit SimTime(uint64_t ps) : ps_(ps) {}

  constexpr uint64_t ps() const { return ps_; }

  static constexpr SimTime zero() { return SimTime{0}; }
  static constexpr SimTime infinity() {
    return SimTime{std::numeric_limits<uint64_t>::max()};
  }
  constexpr bool is_infinite() const { return *this == infinity(); }

  /// Saturating add: infinity stays infinity.
  friend constexpr SimTime operator+(SimTime a, SimTime b) {
    uint64_t s = a.ps_ + b.ps_;
    return SimTime{s < a.ps_ ? std::numeric_limits<uint64_t>::max() : s};
  }
  friend constexpr SimTime operator-(SimTime a, SimTime b) {
    return SimTime{a.ps_ - b.ps_};
  }
  constexpr SimTime& operator+=(SimTime b) { return *this = *this + b; }
  friend constexpr auto operator<=>(SimTime, SimTime) = default;

private:
  uint64_t ps_ = 0;
};

constexpr SimTime ps(uint64_t n) { return SimTime{n}; }
constexpr SimTime ns(uint64_t n) { return SimTime{n * 1000}; }

/// A count of clock cycles. Only a `sim_clock` turns it into time.
class Cycles {
public:
  constexpr Cycles() = default;
  constexpr explicit Cycles(uint64_t n) : n_(n) {}
  constexpr uint64_t count() const { return n_; }
  friend constexpr Cycles operator+(Cycles a, Cycles b) {
    return Cycles{a.n_ + b.n_};
  }
  friend constexpr Cycles operator*(Cycles a, uint64_t k) {
    return Cycles{a.n_ * k};
  }
  friend constexpr auto operator<=>(Cycles, Cycles) = default;

private:
  uint64_t n_ = 0;
};

/// A clock with an integral period in picoseconds (1000 ps = 1 GHz).
class sim_clock {
public:
  constexpr explicit sim_clock(uint64_t period_ps = 1000) : period_(period_ps) {}
  constexpr uint64_t period_ps() const { return period_; }
  /// Saturating like SimTime's +: a product beyond 64 bits is infinity.
  constexpr SimTime to_time(Cycles c) const {
    uint64_t t = 0;
    return __builtin_mul_overflow(c.count(), period_, &t) ? SimTime::infinity() : SimTime{t};
  }
  /// Whole cycles needed to cover `t` (rounded up).
  constexpr Cycles to_cycles_ceil(SimTime t) const {
    return Cycles{t.ps() / period_ + (t.ps() % period_ != 0 ? 1 : 0)};
  }

private:
  uint64_t period_;
};

/// Bandwidth held exactly as an integer number of MB/s (1 GB/s = 1000 MB/s).
struct Bandwidth {
  uint64_t mbps = 0;
  static constexpr Bandwidth gbps(uint64_t g) { return Bandwidth{g * 1000}; }
  friend constexpr auto operator<=>(Bandwidth, Bandwidth) = default;
};

// -- checked arithmetic --------------------------------------------------------

/// The largest time any single configured or requested value may take
/// (a latency, lookahead, mean, end time, clock period, cycles x clock):
/// 2^48 ps, about 281 s of virtual time. The engine adds such values onto
/// event times; bounding each one keeps every sum it forms far below 2^64
/// (65536 maximal delays in a row still fit), so time never wraps.
inline constexpr uint64_t max_time_ps = uint64_t{1} << 48;

/// Why `max_time_ps` exists, for error messages.
inline constexpr const char* max_time_reason =
  "the limit of 281474976710656 ps (2^48 ps, about 281 s of virtual time; "
  "time sums must fit in 64 bits)";

/// a + b, or nothing if the sum does not fit in 64 bits.
constexpr std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t s = 0;
  if (__builtin_add_overflow(a, b, &s))
    return std::nullopt;
  return s;
}

/// a * b, or nothing if the product does not fit in 64 bits.
constexpr std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p))
    return std::nullopt;
  return p;
}

constexpr std::optional<SimTime> checked_add(SimTime a, SimTime b) {
  if (auto s = checked_add(a.ps(), b.ps()))
    return SimTime{*s};
  return std::nullopt;
}

/// `c` cycles of `clock`, or nothing if that does not fit in 64 bits.
constexpr std::optional<SimTime> checked_to_time(const sim_clock& clock, Cycles c) {
  if (auto p = checked_mul(c.count(), clock.period_ps()))
    return SimTime{*p};
  return std::nullopt;
}

/// True if `t` is a value a config or option may hold (<= max_time_ps).
constexpr bool representable(SimTime t) { return t.ps() <= max_time_ps; }

/// Time to move `bytes` at `bw`, rounded up to whole picoseconds:
/// ceil(bytes * 1e6 / MBps) = ceil(bytes * 1000 / GBps); infinity (like
/// SimTime's +) if that does not fit in 64 bits.
__extension__ using uint128 = unsigned __int128;

constexpr SimTime xfer(uint64_t bytes, Bandwidth bw) {
  // Every real transfer fits 64 bits (bytes < 2^43): one hardware division,
  // not a call to the 128-bit one (on every crossing of a link with a
  // bandwidth). The same quotient either way.
  if (bytes < (uint64_t{1} << 43) && bw.mbps < (uint64_t{1} << 62))
    return SimTime{(bytes * 1000000u + bw.mbps - 1) / bw.mbps};
  const uint128 num = static_cast<uint128>(bytes) * 1000000u;
  const uint128 t = (num + bw.mbps - 1) / bw.mbps;
  return t > std::numeric_limits<uint64_t>::max() ? SimTime::infinity()
                                                  : SimTime{static_cast<uint64_t>(t)};
}

} // namespace kb
