// The hub's side of the LBTS protocol (ADR-0001, ADR-0009): when a shard is
// blocked on promises that climb without letting a window start, it tells
// shard 0, which runs counting rounds (lbts_rounds) over every shard and, once
// nothing is in transit, lets every shard jump its incoming promises.

#include "runtime/engine/hub.hpp"
#include "runtime/io/stop_request.hpp"

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

void hub::note_stuck(SimTime safe) {
  if (rings_)
    wait_on_rings(); // a batch through a ring wakes nobody: look for it
  // Blocked once is normal CMB operation; blocked again after the safe time
  // rose twice without letting a window start means the promises are
  // climbing: ask shard 0 for an LBTS (again whenever the snapshot has
  // changed). A promise that leaves the safe time where it was (another
  // shard's bound is the lower one) is waiting, not climbing: with several
  // shards most promises are such, and a notice for each cost more messages
  // than the run's events (issue 36). The watch still notices a shard that
  // stays blocked with nothing moving.
  if (!stuck_) {
    stuck_ = true;
    stuck_repeats_ = 0;
    stuck_safe_ = safe;
    arm_watch();
    return;
  }
  if (safe <= stuck_safe_)
    return;
  stuck_safe_ = safe;
  if (++stuck_repeats_ < 2)
    return;
  hub_snapshot now = snapshot(0);
  if (stuck_repeats_ > 2 && now.local_min == last_notice_.local_min &&
      now.sent == last_notice_.sent && now.recv == last_notice_.recv &&
      now.windows == last_notice_.windows)
    return;
  last_notice_ = now;
  send_notice();
}

void hub::send_notice() {
  if (init_.shard == 0) {
    on_stuck_notice();
  } else if (peers_[0]) {
    ++stats_.lbts_msgs;
    send(peers_[0], stuck_atom_v, init_.shard);
  }
}

void hub::arm_watch() {
  // Liveness does not rest on promises still flowing: a shard that stays
  // blocked with nothing changing tells shard 0 again after a while of wall
  // time (first_watch, doubling up to 1 s). A notice only starts an LBTS round,
  // which is safe at any moment, so results never depend on the timing.
  if (init_.shards == 1 || watch_armed_)
    return;
  watch_armed_ = true;
  watch_windows_ = stats_.windows;
  delayed_send(this, watch_delay_, watch_atom_v);
}

void hub::on_watch() {
  watch_armed_ = false;
  if (running_ && !done_ && stop_request::requested()) { // blocked, yet asked to stop
    stop();
    return;
  }
  if (!running_ || done_ || collected_ || !stuck_) {
    watch_delay_ = first_watch;
    return;
  }
  if (stats_.windows != watch_windows_) {
    watch_delay_ = first_watch; // progress: start afresh
  } else {
    last_notice_ = snapshot(0);
    send_notice();
    watch_delay_ = std::min(watch_delay_ * 2, std::chrono::milliseconds(1000));
  }
  arm_watch();
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
    // A notice that came during this round may come from a shard that
    // changed after its snapshot was taken (shard 0's own is taken first):
    // it will not notice again while it stays as it is, so run a round for
    // it. Found as a hang after every command was done (issue 13).
    const bool again = notice_in_round_;
    apply_jump(v.lbts);
    if (again && !rounds_->running() && running_ && !collected_)
      start_round();
  }
}

void hub::apply_jump(SimTime lbts) {
  book_.apply_jump(lbts);
  if (running_ && outstanding_ == 0 && !done_)
    after_window();
}

// -- the end of a run --------------------------------------------------------

} // namespace kb
