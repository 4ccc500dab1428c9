#include "runtime/engine/cross_process.hpp"

namespace kb {

cross_process_counters& cross_process() {
  static cross_process_counters c;
  return c;
}

void note_reached(SimTime t) {
  auto& r = cross_process().reached_ps;
  uint64_t seen = r.load(std::memory_order_relaxed);
  const uint64_t v = t.is_infinite() ? seen : t.ps();
  while (v > seen && !r.compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
  }
}

} // namespace kb
