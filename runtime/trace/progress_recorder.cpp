#include "runtime/trace/progress_recorder.hpp"

namespace kb {

void progress_recorder::advance(SimTime t) {
  const uint64_t ps = t.ps();
  uint64_t seen = c_->max_time_ps.load(std::memory_order_relaxed);
  while (ps > seen &&
         !c_->max_time_ps.compare_exchange_weak(seen, ps, std::memory_order_relaxed)) {
  }
}

void progress_recorder::record(trace_kind kind, SimTime t, node_id node,
                               const service_tag& tag) {
  // The simulated time moves with tiles and commands too: a node reports
  // its events only every progress_batch, which a node of a wide machine
  // may never reach.
  if (kind == trace_kind::tile_ready) {
    c_->tiles_ready.fetch_add(1, std::memory_order_relaxed);
    advance(t);
  } else if (kind == trace_kind::command_complete) {
    c_->commands_done.fetch_add(1, std::memory_order_relaxed);
    advance(t);
  }
  if (inner_)
    inner_->record(kind, t, node, tag);
}

void progress_recorder::message(const message_note& m, const service_tag& tag) {
  if (inner_)
    inner_->message(m, tag);
}

void progress_recorder::service(SimTime t, node_id node, SimTime begin, SimTime end,
                 const service_tag& tag) {
  if (inner_)
    inner_->service(t, node, begin, end, tag);
}

void progress_recorder::events(uint64_t n, SimTime now) {
  c_->events.fetch_add(n, std::memory_order_relaxed);
  advance(now);
}

std::vector<char> progress_recorder::take_records() {
  return inner_ ? inner_->take_records() : std::vector<char>{};
}

} // namespace kb
