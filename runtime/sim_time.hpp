#pragma once
// Virtual time: picoseconds (SimTime) and clock cycles (Cycles) are distinct
// strong types. Converting between them needs a `sim_clock`. No floating point.

#include <compare>
#include <cstdint>
#include <limits>

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
  constexpr SimTime to_time(Cycles c) const { return SimTime{c.count() * period_}; }
  /// Whole cycles needed to cover `t` (rounded up).
  constexpr Cycles to_cycles_ceil(SimTime t) const {
    return Cycles{(t.ps() + period_ - 1) / period_};
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

/// Time to move `bytes` at `bw`, rounded up to whole picoseconds:
/// ceil(bytes * 1e6 / MBps) = ceil(bytes * 1000 / GBps).
__extension__ using uint128 = unsigned __int128;

constexpr SimTime xfer(uint64_t bytes, Bandwidth bw) {
  const uint128 num = static_cast<uint128>(bytes) * 1000000u;
  return SimTime{static_cast<uint64_t>((num + bw.mbps - 1) / bw.mbps)};
}

} // namespace kb
