#include "runtime/engine/lbts_rounds.hpp"

#include <algorithm>

namespace kb {

uint64_t lbts_rounds::start() {
  running_ = true;
  std::fill(cur_.begin(), cur_.end(), std::nullopt);
  return ++round_;
}

bool lbts_rounds::same(const hub_snapshot& a, const hub_snapshot& b) {
  return a.stuck == b.stuck && a.local_min == b.local_min && a.sent == b.sent &&
         a.recv == b.recv && a.windows == b.windows;
}

lbts_rounds::verdict lbts_rounds::add(const hub_snapshot& s) {
  if (!running_ || s.round != round_ || s.shard >= shards_)
    return {};
  cur_[s.shard] = s;
  if (std::any_of(cur_.begin(), cur_.end(), [](const auto& x) { return !x; }))
    return {};
  running_ = false;
  uint64_t sent = 0, recv = 0;
  bool all_stuck = true;
  SimTime lbts = SimTime::infinity();
  for (const auto& x : cur_) {
    sent += x->sent;
    recv += x->recv;
    all_stuck = all_stuck && x->stuck;
    lbts = std::min(lbts, x->local_min);
  }
  if (!all_stuck || sent != recv) {
    std::fill(prev_.begin(), prev_.end(), std::nullopt);
    return {action::wait, {}};
  }
  bool confirmed = true;
  for (uint32_t i = 0; i < shards_; ++i)
    confirmed = confirmed && prev_[i] && same(*prev_[i], *cur_[i]);
  if (!confirmed) {
    prev_ = cur_;
    return {action::again, {}};
  }
  std::fill(prev_.begin(), prev_.end(), std::nullopt);
  return {action::jump, lbts};
}

} // namespace kb
