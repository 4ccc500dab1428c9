#include "runtime/engine/route_table.hpp"

namespace kb {

void route_table::add(route r) {
  // One entry per link, never merged: at() is then a plain index (merged
  // entries would make every send of a machine node a binary search).
  runs_.push_back({count_, r.dst, 1, r.latency, r.state});
  ++count_;
}

void route_table::add_run(node_id first_dst, uint32_t count, uint16_t latency) {
  if (count == 0)
    return;
  if (!runs_.empty()) {
    run& last = runs_.back();
    if (last.state == no_state && latency == last.latency &&
        last.first_dst + last.count == first_dst) {
      last.count += count;
      count_ += count;
      return;
    }
  }
  runs_.push_back({count_, first_dst, count, latency, no_state});
  count_ += count;
}

std::optional<uint32_t> route_table::find(node_id dst) const {
  for (const run& x : runs_)
    if (dst >= x.first_dst && dst - x.first_dst < x.count)
      return x.first_link + (dst - x.first_dst);
  return std::nullopt;
}

} // namespace kb
