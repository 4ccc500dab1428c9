#include "runtime/engine/promise_book.hpp"

#include <algorithm>

namespace kb {

promise_book::promise_book(uint32_t shard, uint32_t shards, std::vector<SimTime> cut_lookahead,
                           std::vector<SimTime> cut_in)
  : shard_(shard), shards_(shards), cut_lookahead_(std::move(cut_lookahead)),
    cut_in_(std::move(cut_in)) {
  cut_lookahead_.resize(shards_, SimTime::infinity());
  cut_in_.resize(shards_, SimTime::infinity());
  promise_in_.assign(shards_, SimTime::zero());
  if (shard_ < shards_)
    promise_in_[shard_] = SimTime::infinity();
  promise_sent_.assign(shards_, SimTime::zero());
  sent_events_.assign(shards_, 0);
  recv_events_.assign(shards_, 0);
  ack_sent_.assign(shards_, 0);
  unacked_.resize(shards_);
  floor_.assign(shards_, SimTime::zero());
  wanted_.assign(shards_, 0);
  asked_.assign(shards_, 0);
  last_in_.assign(shards_, SimTime::zero());
  acked_in_.assign(shards_, 0);
}

SimTime promise_book::bound_from(uint32_t r) const {
  // The earliest reply bound is at the front (see promises()).
  const auto& wait = unacked_[r];
  return wait.empty() ? promise_in_[r] : std::min(promise_in_[r], wait.front().reply);
}

SimTime promise_book::promise_in_min(uint32_t except) const {
  SimTime t = SimTime::infinity();
  for (uint32_t r = 0; r < shards_; ++r)
    if (r != shard_ && r != except)
      t = std::min(t, bound_from(r));
  return t;
}

void promise_book::received(uint32_t from, SimTime time, uint64_t acked, bool need,
                            size_t events) {
  // A promise may be lower than the last one when it accounts for events
  // from here (it excludes this shard's own promise, ADR-0014); the
  // reply bounds of those events kept it safe until now. Never below an
  // LBTS jump's floor, though: a promise sent before the jump may arrive
  // after it.
  promise_in_[from] = std::max(time, floor_[from]);
  auto& wait = unacked_[from];
  while (!wait.empty() && wait.front().upto <= acked)
    wait.pop_front();
  // An answer (a promise above the last one, new acknowledgements or
  // events) ends this shard's question to `from`; if still blocked on it,
  // it asks again. These are exactly the batches after which `from` stops
  // wanting to answer (promises(); channels are FIFO, so both sides see
  // the same sequence). A batch that is only `from`'s own question is no
  // answer: two shards blocked on each other would ask each other forever.
  if (time > last_in_[from] || acked > acked_in_[from] || events > 0)
    asked_[from] = 0;
  last_in_[from] = time;
  acked_in_[from] = std::max(acked_in_[from], acked);
  if (need)
    wanted_[from] = 1;
  recv_events_[from] += events;
}

std::span<const promise_book::promise>
promise_book::promises(SimTime local, SimTime end,
                       const std::vector<std::vector<sim_event>>& out) {
  due_.clear();
  if (shards_ == 1)
    return due_;
  // To shard s: nothing before the earliest local event or anything that
  // may still come from a shard other than s, plus the cut's lookahead.
  // s's own promise is left out: whatever s sends here and this shard sends
  // back, s bounds itself by until this shard acknowledges it (ADR-0014).
  // First the reply bounds of every batch sent now: a promise to s must
  // cover what a shard r != s may answer to events sent to r now.
  for (uint32_t s = 0; s < shards_; ++s) {
    if (s == shard_ || out[s].empty())
      continue;
    SimTime first = SimTime::infinity();
    for (const auto& e : out[s])
      first = std::min(first, e.t);
    sent_events_[s] += out[s].size();
    // Acknowledgements come in order, so a batch whose reply bound is no
    // earlier than this one's never matters again once this one is sent:
    // dropping those keeps the bounds rising from front to back.
    auto& wait = unacked_[s];
    const SimTime reply = first + cut_in_[s];
    while (!wait.empty() && wait.back().reply >= reply)
      wait.pop_back();
    wait.push_back({sent_events_[s], reply});
  }
  // promise_in_min(s) for every s from one pass: the smallest bound over
  // the other shards, and the next smallest for the shard that holds it
  // (per s a pass of its own was quadratic in shards: 128 shards on one
  // thread spent 90% of the run here).
  SimTime least = SimTime::infinity(), second = SimTime::infinity();
  uint32_t least_from = UINT32_MAX;
  for (uint32_t r = 0; r < shards_; ++r) {
    if (r == shard_)
      continue;
    const SimTime b = bound_from(r);
    if (b < least) {
      second = least;
      least = b;
      least_from = r;
    } else if (b < second) {
      second = b;
    }
  }
  // Blocked: a shard's bound keeps the next local event (or, with none
  // before the end, the end itself) from running. Each such shard is asked
  // once (`need`) to answer its next rise at once (ADR-0029).
  const bool before_end = local < end;
  for (uint32_t s = 0; s < shards_; ++s) {
    if (s == shard_)
      continue;
    const SimTime in = s == least_from ? second : least;
    const SimTime p = std::min(local, in) + cut_lookahead_[s];
    const SimTime from_s = bound_from(s);
    const bool need = !asked_[s] && (before_end ? from_s <= local : from_s < end);
    // A promise alone (no events) goes only where it is waited for: to a
    // shard that asked, or when it rose by a whole cut lookahead. With
    // three or more shards most rises are small forwards of another
    // shard's promise (91% under a tenth of the lookahead on PHOLD over 2
    // processes of 2 threads), each waking its addressee to forward it
    // again: 5 null messages per event (issue 36). Withholding one is
    // safe (the addressee keeps an older, lower bound, and the reply
    // bounds of unacknowledged events) and live (a shard blocked on this
    // one has asked, and is answered at the next rise).
    const bool rose = p > promise_sent_[s];
    const bool acks = recv_events_[s] != ack_sent_[s];
    const bool events = !out[s].empty();
    const bool answer = wanted_[s] && (rose || acks);
    const bool big = rose && p >= promise_sent_[s] + cut_lookahead_[s];
    if (!events && !need && !answer && !big)
      continue;
    asked_[s] = asked_[s] || need;
    if (rose || acks || events)
      wanted_[s] = 0; // answered (a question alone is no answer)
    ack_sent_[s] = recv_events_[s];
    promise_sent_[s] = p;
    due_.push_back({s, p, need, recv_events_[s]});
  }
  return due_;
}

void promise_book::apply_jump(SimTime lbts) {
  // Nothing anywhere happens before `lbts`: a message from shard r can
  // arrive no earlier than lbts plus the shortest link from r to here.
  for (uint32_t r = 0; r < shards_; ++r)
    if (r != shard_) {
      const SimTime floor = lbts + cut_in_[r];
      floor_[r] = std::max(floor_[r], floor);
      promise_in_[r] = std::max(promise_in_[r], floor);
      for (unacked& u : unacked_[r])
        u.reply = std::max(u.reply, floor);
    }
}

} // namespace kb
