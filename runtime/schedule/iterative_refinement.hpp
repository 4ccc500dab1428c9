#pragma once
// Rau's iterative modulo scheduling as the first two rungs of the strategy
// ladder: ops by height, earliest legal seat in [Estart, Estart+II−1], and
// when none is free a forced seat that evicts what conflicts with it.

#include "runtime/schedule/modulo_state.hpp"

#include <cstdint>

namespace kb::sched {

struct refine_options {
  uint64_t budget = 0;  ///< placement steps before giving up
  bool latest = false;  ///< deepest retry: seat as late as the window allows
  uint64_t shuffle = 0; ///< non-zero: ties of height in a seeded order, not program order
};

/// Continues from the seats already in `s`. Evicted ops are held over (G1)
/// for one step; ops G2 marks dead are revived once when nothing else is left.
/// True when every op is seated.
bool iterative_refine(modulo_state& s, const refine_options& o);

} // namespace kb::sched
