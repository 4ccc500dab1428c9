#pragma once
// Storage for pending events, addressed by slot: a freed slot is the next
// one taken, so the event written next lands in memory that was read last
// (warm in cache).

#include "runtime/engine/event.hpp"

#include <vector>

namespace kb {

class event_slab {
public:
  uint32_t put(sim_event&& ev) {
    if (free_.empty()) {
      slots_.push_back(std::move(ev));
      return static_cast<uint32_t>(slots_.size() - 1);
    }
    const uint32_t slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(ev);
    return slot;
  }
  sim_event take(uint32_t slot) {
    free_.push_back(slot);
    return std::move(slots_[slot]);
  }
  const sim_event& at(uint32_t slot) const { return slots_[slot]; }
  void prefetch(uint32_t slot) const { __builtin_prefetch(&slots_[slot]); }

private:
  std::vector<sim_event> slots_;
  std::vector<uint32_t> free_;
};

} // namespace kb
