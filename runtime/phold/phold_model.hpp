#pragma once
// The PHOLD model (Fujimoto 1990), shared by the actor version and the
// sequential yardstick so that both draw exactly the same numbers.
//
// N logical processes; each starts with E events at exponential times.
// Handling an event at t schedules exactly one new event at
// t + lookahead + exp(mean): with probability p_remote to a uniformly random
// LP, otherwise to itself. Events are committed while t < end. Simultaneous
// events are ordered by (t, sender LP, sender sequence number).

#include "runtime/sim_time.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kb::phold {

struct params {
  uint32_t lps = 1024;
  uint32_t events_per_lp = 16;
  double remote = 0.25;
  uint64_t lookahead_ps = 1000;
  uint64_t mean_ps = 1000;
  uint64_t end_ps = 1'000'000;
  uint64_t seed = 42;
};

/// splitmix64: seeds each LP's generator from (seed, lp).
constexpr uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// xoshiro256** generator, one per LP.
class rng {
public:
  rng(uint64_t seed, uint32_t lp) {
    uint64_t x = seed ^ (0x5851f42d4c957f2dull * (uint64_t{lp} + 1));
    for (auto& w : s_)
      w = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in (0, 1].
  double unit() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
  /// Uniform integer in [0, n).
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>((static_cast<uint128>(next()) * n) >> 64);
  }

private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

/// An exponential delay with the given mean, in whole picoseconds.
inline uint64_t exp_delay(rng& r, uint64_t mean_ps) {
  return static_cast<uint64_t>(std::ceil(-static_cast<double>(mean_ps) * std::log(r.unit())));
}

/// What handling one event decides: where the next event goes and after how
/// long the exponential part of the delay is (the lookahead comes on top).
struct decision {
  uint32_t dst;
  uint64_t exp_ps;
};

inline decision decide(rng& r, uint32_t self, const params& p) {
  decision d{self, 0};
  if (r.unit() <= p.remote)
    d.dst = r.below(p.lps);
  d.exp_ps = exp_delay(r, p.mean_ps);
  return d;
}

/// Final state of one LP.
struct lp_state {
  uint64_t committed = 0;
  uint64_t last_ps = 0;
};

/// FNV-1a over every LP's (committed, last_ps) in LP order.
inline uint64_t digest(const std::vector<lp_state>& lps) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 0x100000001b3ull;
    }
  };
  for (const auto& s : lps) {
    mix(s.committed);
    mix(s.last_ps);
  }
  return h;
}

/// LP names sort in LP order: "lp" + zero-padded index.
inline std::string lp_name(uint32_t i, uint32_t n) {
  const int width = static_cast<int>(std::to_string(n > 0 ? n - 1 : 0).size());
  std::string s = std::to_string(i);
  return "lp" + std::string(width - static_cast<int>(s.size()), '0') + s;
}

} // namespace kb::phold
