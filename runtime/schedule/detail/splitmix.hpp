#pragma once
// splitmix64: a tiny portable generator, the same on every platform, for the
// deterministic sampling of the permute arm and the random test problems.

#include <cstdint>

namespace kb::sched::detail {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

} // namespace kb::sched::detail
