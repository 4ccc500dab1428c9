// The hub's side of the LBTS protocol (ADR-0001, ADR-0009): when a shard is
// blocked on promises that climb without letting a window start, it tells
// shard 0, which runs counting rounds (lbts_rounds) over every shard and, once
// nothing is in transit, lets every shard jump its incoming promises.

#include "runtime/engine/hub.hpp"

namespace kb {

// -- LBTS when every shard is stuck --------------------------------------------

hub_snapshot hub::snapshot(uint64_t round) const {
  hub_snapshot s;
  s.shard = init_.shard;
  s.round = round;
  s.stuck = running_ && (done_ || (outstanding_ == 0 && stuck_));
  s.local_min = local_min();
  s.sent = batches_sent_;
  s.recv = batches_recv_;
  s.windows = stats_.windows;
  return s;
}

void hub::note_stuck() {
  // Blocked once is normal CMB operation; blocked again after promises came
  // in without letting a window start means the promises are climbing:
  // ask shard 0 for an LBTS (again whenever the snapshot has changed).
  if (!stuck_) {
    stuck_ = true;
    stuck_repeats_ = 0;
    return;
  }
  if (++stuck_repeats_ < 2)
    return;
  hub_snapshot now = snapshot(0);
  if (stuck_repeats_ > 2 && now.local_min == last_notice_.local_min &&
      now.sent == last_notice_.sent && now.recv == last_notice_.recv &&
      now.windows == last_notice_.windows)
    return;
  last_notice_ = now;
  if (init_.shard == 0) {
    on_stuck_notice();
  } else {
    ++stats_.lbts_msgs;
    send(peers_[0], stuck_atom_v, init_.shard);
  }
}

void hub::on_stuck_notice() {
  if (!rounds_ || !running_ || collected_)
    return;
  if (rounds_->running()) {
    // The notice may come from a shard the round saw busy: when this round
    // fails, run another (the noticing shard will not notice again while its
    // snapshot stays the same, so dropping the notice could wait forever).
    notice_in_round_ = true;
    return;
  }
  start_round();
}

void hub::start_round() {
  notice_in_round_ = false;
  const uint64_t round = rounds_->start();
  for (uint32_t s = 1; s < init_.shards; ++s) {
    ++stats_.lbts_msgs;
    send(peers_[s], probe_atom_v, round);
  }
  on_snapshot(snapshot(round));
}

void hub::on_snapshot(const hub_snapshot& s) {
  if (!rounds_)
    return;
  const auto v = rounds_->add(s);
  if (v.what == lbts_rounds::action::again ||
      (v.what == lbts_rounds::action::wait && notice_in_round_)) {
    start_round();
  } else if (v.what == lbts_rounds::action::jump) {
    ++stats_.lbts_jumps;
    for (uint32_t r = 1; r < init_.shards; ++r) {
      ++stats_.lbts_msgs;
      send(peers_[r], jump_atom_v, v.lbts.ps());
    }
    apply_jump(v.lbts);
  }
}

void hub::apply_jump(SimTime lbts) {
  // Nothing anywhere happens before `lbts`: a message from shard r can
  // arrive no earlier than lbts plus the shortest link from r to here.
  for (uint32_t r = 0; r < init_.shards; ++r)
    if (r != init_.shard)
      promise_in_[r] = std::max(promise_in_[r], lbts + init_.cut_in[r]);
  if (running_ && outstanding_ == 0 && !done_)
    after_window();
}

// -- the end of a run --------------------------------------------------------

} // namespace kb
