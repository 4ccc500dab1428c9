#include "runtime/engine/route_table.hpp"

namespace kb {

void route_table::add(route r) {
  // One entry per link, never merged: at() is then a plain index (merged
  // entries would make every send of a machine node a binary search).
  push({count_, r.dst, 1, r.latency, r.state});
  ++count_;
}

void route_table::push(const run& r) {
  if (runs_ < inline_runs) {
    inline_[runs_++] = r;
    return;
  }
  if (runs_ == inline_runs) // the inline entries move out, with the new one
    spill_.insert(spill_.end(), inline_, inline_ + inline_runs);
  spill_.push_back(r);
  ++runs_;
}

void route_table::add_run(node_id first_dst, uint32_t count, uint16_t latency) {
  if (count == 0)
    return;
  if (runs_ > 0) {
    run& last = data()[runs_ - 1];
    if (last.state == no_state && latency == last.latency &&
        last.first_dst + last.count == first_dst) {
      last.count += count;
      count_ += count;
      return;
    }
  }
  push({count_, first_dst, count, latency, no_state});
  count_ += count;
}

std::optional<uint32_t> route_table::find(node_id dst) const {
  const run* runs = data();
  for (uint32_t i = 0; i < runs_; ++i)
    if (const run& x = runs[i]; dst >= x.first_dst && dst - x.first_dst < x.count)
      return x.first_link + (dst - x.first_dst);
  return std::nullopt;
}

} // namespace kb
