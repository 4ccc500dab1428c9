#include "runtime/engine/hub.hpp"

#include "runtime/io/stop_request.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace kb {

hub::hub(caf::actor_config& cfg, hub_init init)
  : caf::event_based_actor(cfg), init_(std::move(init)),
    book_(init_.shard, init_.shards, init_.cut_lookahead, init_.cut_in),
    // Mailbox delivery's per-node book; a direct loop keeps its own.
    windows_(init_.tables->direct.empty() ? init_.tables->owner.size() : 0),
    local_(std::move(init_.ids)) {
  peer_out_.resize(init_.shards);
  peers_.resize(init_.shards);
  init_.cut_lookahead.resize(init_.shards, SimTime::infinity());
  init_.cut_in.resize(init_.shards, SimTime::infinity());
  if (init_.shard == 0 && init_.shards > 1)
    rounds_ = std::make_unique<lbts_rounds>(init_.shards);
  if (!init_.tables->direct.empty()) {
    loop_ = std::make_unique<shard_loop>(init_.shard, init_.tables, local_, peer_out_);
    loop_->set_reply_latency(init_.cut_in);
  }
  for (node_id id : local_)
    monitor(init_.tables->nodes[id]);
  set_down_handler([this](caf::down_msg& dm) { on_down(dm); });
}

void hub::on_down(const caf::down_msg& dm) {
  if (collected_) {
    // Shard 0 went after this shard's part was handed in: its release may
    // never come (its process ended), and nothing more is asked of us.
    if (init_.shard != 0 && part_handed_in_ && !peers_.empty() && peers_[0] &&
        peers_[0].address() == dm.source)
      finish_part();
    return;
  }
  for (uint32_t r = 0; r < peers_.size(); ++r) {
    if (r == init_.shard || !peers_[r] || peers_[r].address() != dm.source)
      continue;
    // A shard that already promised nothing more before the end may go,
    // unless this is shard 0 and it still holds that shard's results.
    if (init_.shard == 0 && r < handed_in_.size() && handed_in_[r])
      return;
    const bool harmless = running_ && book_.bound_from(r) >= end_ && init_.shard != 0;
    peers_[r] = nullptr; // gone: never ask it for anything again
    gather_.lost(r);     // its nodes' results are lost with it
    if (!harmless)
      fail(fmt::format("shard {} stopped ({}) while shard {} still depended on it",
                       r, to_string(dm.reason), init_.shard));
    return;
  }
  fail("a node actor stopped unexpectedly: " + to_string(dm.reason));
}

caf::behavior hub::make_behavior() {
  return {
    // First: CAF tries the cases in order, and batches are nearly all the
    // traffic (a miss costs a type-name comparison).
    [this](event_batch& b) {
      if (b.kind == batch_kind::report)
        on_report(b);
      else if (b.kind == batch_kind::peer)
        on_peer(b);
    },
    [this](continue_atom) {
      continuing_ = false;
      if (running_ && !done_)
        step_direct();
    },
    [this](run_request& r) {
      run_rp_ = make_response_promise();
      requested_at_ = std::chrono::steady_clock::now();
      end_ = r.end;
      run_requested_ = true;
      if (peers_known())
        start();
      else if (init_.shard == 0)
        delayed_send(this, join_timeout(), join_timeout_atom_v);
    },
    [this](join_timeout_atom) {
      if (running_ || peers_known())
        return;
      std::string missing;
      for (uint32_t s = 1; s < init_.shards; ++s)
        if (!peers_[s])
          missing += (missing.empty() ? "" : ", ") + std::to_string(s);
      error_ = fmt::format("shard(s) {} did not join within {} s", missing,
                           join_timeout().count());
      running_ = true; // so that the run ends with this error
      fail(error_);
    },
    [this](hello_atom, uint32_t shard, caf::actor& peer) {
      on_hello(shard, std::move(peer));
    },
    [this](peers_atom, std::vector<caf::actor>& ps) {
      for (uint32_t s = 0; s < ps.size() && s < peers_.size(); ++s)
        if (s != init_.shard && ps[s]) {
          peers_[s] = ps[s];
          monitor(peers_[s]);
        }
      if (run_requested_ && !running_ && peers_known())
        start();
    },
    [this](stuck_atom, uint32_t) { on_stuck_notice(); },
    [this](watch_atom) { on_watch(); },
    [this](probe_atom, uint64_t round) {
      ++stats_.lbts_msgs;
      send(peers_[0], snapshot(round));
    },
    [this](hub_snapshot& s) { on_snapshot(s); },
    [this](jump_atom, uint64_t lbts) { apply_jump(SimTime{lbts}); },
    [this](halt_atom, uint32_t shard, std::string& why) {
      if (running_)
        on_halt(shard, why);
      else if (!early_halt_)
        // Shard 0 may stop (or fail) as soon as it runs, before this shard
        // has its run request or the peers' list: it stops as it starts.
        // (Dropped, it ran on and waited for shard 0's promises while shard
        // 0 waited for its part: a split run stopped by Ctrl-C at once
        // stalled, one time in ten under the sanitizers.)
        early_halt_.emplace(shard, std::move(why));
    },
    [this](collect_atom) {
      collect_rps_.push_back(make_response_promise());
      if (collected_)
        deliver();
    },
    [this](release_atom) { finish_part(); },
    [this](ring_poll_atom) { on_ring_poll(); },
    [this](doorbell_atom) { on_doorbell(); },
    [this](rings_atom) -> std::string {
      // Rank 0's segment, for another process to map (peer_rings.hpp).
      const auto& slot = init_.rings;
      return slot && slot->rings ? slot->rings->advert() : std::string{};
    },
  };
}

std::chrono::seconds hub::join_timeout() {
  // Wall-clock guard for the set-up of a split run (not model time).
  if (const char* env = std::getenv("KB_JOIN_TIMEOUT_S"); env && *env)
    return std::chrono::seconds{std::strtoul(env, nullptr, 10)};
  return std::chrono::seconds{60};
}

void hub::on_exit() {
  loop_.reset(); // it shares the tables
  init_.tables.reset();
  peers_.clear();
  run_rp_ = caf::response_promise{};
  collect_rps_.clear();
}

// -- set-up ------------------------------------------------------------------

void hub::on_hello(uint32_t shard, caf::actor peer) {
  // Shard 0 learns every other hub, then tells each of them about all.
  if (init_.shard != 0 || shard == 0 || shard >= init_.shards)
    return;
  peers_[shard] = std::move(peer);
  monitor(peers_[shard]);
  if (!peers_known())
    return;
  std::vector<caf::actor> all = peers_;
  all[0] = caf::actor_cast<caf::actor>(this);
  for (uint32_t s = 1; s < init_.shards; ++s)
    send(peers_[s], peers_atom_v, all);
  if (run_requested_ && !running_)
    start();
}

void hub::on_halt(uint32_t shard, const std::string& why) {
  if (why == stop_reason)
    stop();
  else
    fail(fmt::format("shard {} failed: {}", shard, why));
}

bool hub::peers_known() const {
  for (uint32_t s = 0; s < init_.shards; ++s)
    if (s != init_.shard && !peers_[s])
      return false;
  return true;
}

void hub::start() {
  running_ = true;
  open_rings();
  started_at_ = std::chrono::steady_clock::now();
  stats_.start_wait_ns = static_cast<uint64_t>(
    std::chrono::duration_cast<std::chrono::nanoseconds>(started_at_ - requested_at_).count());
  if (loop_) { // direct delivery: on_start of every node, then the loop
    if (std::string e = loop_->start(); !e.empty()) {
      fail(std::move(e));
      return;
    }
    if (early_halt_)
      on_halt(early_halt_->first, early_halt_->second);
    else
      step_direct();
    return;
  }
  if (early_halt_) {
    on_halt(early_halt_->first, early_halt_->second);
    return;
  }
  // Initial round: every node runs on_start() at time 0 and reports its
  // first event time. Nothing is handled (the window ends at 0).
  for (node_id id : local_) {
    event_batch b;
    b.kind = batch_kind::advance;
    b.node = id;
    b.time = SimTime::zero();
    send(init_.tables->nodes[id], std::move(b));
  }
  stats_.advance_msgs += local_.size();
  outstanding_ = local_.size();
  if (outstanding_ == 0)
    after_window();
}

// -- windows -----------------------------------------------------------------

void hub::on_report(event_batch& b) {
  const node_id id = b.node;
  windows_.reported(id, b.time);
  ++stats_.report_msgs;
  if (!b.error.empty() && (error_.empty() || id < error_node_)) {
    error_ = std::move(b.error);
    error_node_ = id;
  }
  route(b.events);
  recycle(b.events);
  if (--outstanding_ == 0)
    after_window();
}

void hub::take_in(event_batch& b) {
  book_.received(b.from, b.time, b.acked, b.need, b.events.size());
  if (!b.events.empty())
    ++batches_recv_;
  for (const auto& e : b.events)
    if (e.t < last_window_ && error_.empty())
      error_ = fmt::format("causality violation: shard {} sent an event for "
                           "{} ps after shard {} ran to {} ps",
                           b.from, e.t.ps(), init_.shard,
                           last_window_.ps());
  route(b.events);
  recycle(b.events);
}

void hub::on_peer(event_batch& b) {
  if (b.from >= init_.shards)
    return;
  take_in(b);
  after_peers(b.need && peers_[b.from]);
}

void hub::after_peers(bool asked) {
  if (!running_)
    return;
  if (done_) {
    // Done: its last promise (at least the end plus a lookahead) went out
    // with the step that finished it, so nobody should still ask; if one
    // does, it is answered, not left to the watch.
    if (asked)
      send_promises(local_min());
    return;
  }
  if (outstanding_ != 0)
    return;
  // More messages are waiting (peer batches of other shards, often): take
  // them all in before running and promising, so that one step answers
  // them together. Each peer batch used to start a step of its own, whose
  // promises woke the other shards in turn (issue 36).
  if (loop_ && !mailbox().empty()) {
    if (!continuing_) {
      continuing_ = true;
      ++stats_.yield_msgs;
      send(this, continue_atom_v);
    }
    return;
  }
  after_window();
}

std::vector<sim_event> hub::spare() {
  if (spares_.empty())
    return {};
  std::vector<sim_event> v = std::move(spares_.back());
  spares_.pop_back();
  return v;
}

void hub::recycle(std::vector<sim_event>& evs) {
  if (evs.capacity() == 0)
    return;
  evs.clear();
  spares_.push_back(std::move(evs));
}

void hub::route(std::vector<sim_event>& evs) {
  for (auto& e : evs) {
    if (e.dst >= init_.tables->owner.size()) {
      if (error_.empty())
        error_ = fmt::format("message to unknown node id {}", e.dst);
      continue;
    }
    const uint32_t s = init_.tables->owner[e.dst];
    if (loop_) {
      loop_->deliver(std::move(e));
    } else if (s == init_.shard) {
      windows_.hold(std::move(e));
    } else {
      peer_out_[s].push_back(std::move(e));
    }
  }
}

void hub::after_window() {
  if (!error_.empty()) {
    done_ = true;
    collect();
    return;
  }
  if (loop_) {
    if (!continuing_)
      step_direct();
    return;
  }
  if (rings_ && (take_rings(), done_))
    return; // a malformed batch failed the run
  const SimTime local = local_min();
  send_promises(local);
  try_advance(local);
}

void hub::step_direct() {
  if (!error_.empty()) {
    done_ = true;
    collect();
    return;
  }
  if (stop_request::requested()) {
    stop();
    return;
  }
  if (rings_) {
    take_rings(); // the latest promises and events before the safe time
    if (done_)
      return; // a malformed batch failed the run
  }
  // Events handled between two looks into the mailbox (peer batches, down
  // messages, a stop request): large enough that the yield costs nothing
  // per event.
  constexpr size_t loop_budget = size_t{1} << 16;
  const SimTime safe = std::min(book_.promise_in_min(), end_);
  // A shard that asked is blocked on this one: when steps are long, it
  // gets its answer after one cut lookahead of progress, not after the
  // whole window. Else two shards fall into turns, each running two
  // lookaheads while the other waits for its promise (the 4,096-PE
  // machine on 2 processes: each worker busy half the time, no faster
  // than one process; issue 31). Short steps are left whole: there the
  // round trip of an answer costs more than the turns (PHOLD 256 over 2
  // processes, ~100 events a step: 25% slower when split).
  SimTime upto = safe;
  if (last_step_events_ >= answer_early_events)
    for (uint32_t s = 0; s < init_.shards; ++s)
      if (s != init_.shard && book_.wanted(s))
        upto = std::min(upto, loop_->next_time() + init_.cut_lookahead[s]);
  std::string err;
  last_step_events_ = loop_->run(upto, loop_budget, err);
  if (last_step_events_ > 0) {
    ++stats_.windows;
    last_window_ = loop_->last_time() + ps(1);
    note_reached(last_window_);
    stuck_ = false;
    stuck_repeats_ = 0;
  }
  if (!err.empty()) {
    fail(std::move(err));
    return;
  }
  const SimTime local = loop_->next_time();
  send_promises(local);
  if (local < safe) { // the budget or an answer: let the mailbox in, then go on
    continuing_ = true;
    ++stats_.yield_msgs;
    send(this, continue_atom_v);
    return;
  }
  if (local >= end_ && book_.promise_in_min() >= end_) {
    done_ = true;
    collect();
    return;
  }
  note_stuck(safe); // waiting for another shard's promise
}

SimTime hub::local_min() const {
  return loop_ ? loop_->next_time() : windows_.local_min();
}

void hub::try_advance(SimTime local) {
  if (outstanding_ > 0 || done_ || !running_)
    return;
  if (stop_request::requested()) {
    stop();
    return;
  }
  const SimTime t = local;
  const SimTime p = book_.promise_in_min();
  if (t >= end_ && p >= end_) {
    done_ = true;
    collect();
    return;
  }
  const SimTime w = std::min({t + init_.lookahead, p, end_});
  if (w <= t) { // waiting for another shard's promise
    note_stuck(p);
    return;
  }
  stuck_ = false;
  stuck_repeats_ = 0;
  ++stats_.windows;
  last_window_ = w;
  note_reached(w);
  for (node_id id : windows_.wake(w)) {
    event_batch b;
    b.kind = batch_kind::advance;
    b.node = id;
    b.time = w;
    b.events = windows_.take(id, spare());
    post(this, init_.tables->nodes[id], std::move(b));
    ++outstanding_;
  }
  stats_.advance_msgs += outstanding_;
}

} // namespace kb
