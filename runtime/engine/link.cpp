#include "runtime/engine/link.hpp"

#include <algorithm>

namespace kb {

crossing out_link::cross(SimTime h, SimTime tau, uint64_t bytes) {
  const SimTime t = std::max(tau, h);
  if (!spec_.bw) // a pure-latency wire: nothing to serialise on
    return {h + spec_.latency, t + spec_.latency};
  const SimTime s = std::max(h, last_tail_);
  const SimTime x = xfer(bytes, *spec_.bw);
  const SimTime tail = std::max(s + x, t);
  bytes_ += bytes;
  ++messages_;
  busy_ps_ += x.ps();
  last_tail_ = tail;
  return {s + spec_.latency, tail + spec_.latency};
}

out_link::credit_slot& out_link::slot(queue_id q) {
  for (auto& s : slots_)
    if (s.queue == q)
      return s;
  slots_.push_back({q, spec_.depth, {}});
  return slots_.back();
}

const out_link::credit_slot* out_link::find(queue_id q) const {
  for (const auto& s : slots_)
    if (s.queue == q)
      return &s;
  return nullptr;
}

bool out_link::has_credit(queue_id q) const {
  if (!bounded())
    return true;
  const auto* s = find(q);
  return s == nullptr ? spec_.depth > 0 : s->credits > 0;
}

uint32_t out_link::credits(queue_id q) const {
  const auto* s = find(q);
  return s == nullptr ? spec_.depth : s->credits;
}

void out_link::spend(queue_id q) {
  if (bounded())
    --slot(q).credits;
}

void out_link::refund(queue_id q) {
  if (bounded())
    ++slot(q).credits;
}

event_fifo& out_link::held(queue_id q) {
  return slot(q).held;
}

bool out_link::any_held() const {
  return std::any_of(slots_.begin(), slots_.end(),
                     [](const credit_slot& s) { return !s.held.empty(); });
}

} // namespace kb
