// The hub's promises to the other shards and its bounds on them (ADR-0001
// null messages, ADR-0014 promises that exclude their addressee): what the
// safe time is, and what each other shard is told it may rely on.

#include "runtime/engine/hub.hpp"

namespace kb {

SimTime hub::bound_from(uint32_t r) const {
  // The earliest reply bound is at the front (see send_promises).
  const auto& wait = unacked_[r];
  return wait.empty() ? promise_in_[r] : std::min(promise_in_[r], wait.front().reply);
}

SimTime hub::promise_in_min(uint32_t except) const {
  SimTime t = SimTime::infinity();
  for (uint32_t r = 0; r < init_.shards; ++r)
    if (r != init_.shard && r != except)
      t = std::min(t, bound_from(r));
  return t;
}

void hub::send_promises(SimTime local) {
  if (init_.shards == 1)
    return;
  // To shard s: nothing before the earliest local event or anything that
  // may still come from a shard other than s, plus the cut's lookahead.
  // s's own promise is left out: whatever s sends here and this shard sends
  // back, s bounds itself by until this shard acknowledges it (ADR-0014).
  // First the reply bounds of every batch this call sends: a promise to s
  // must cover what a shard r != s may answer to events sent to r now.
  for (uint32_t s = 0; s < init_.shards; ++s) {
    if (s == init_.shard || peer_out_[s].empty())
      continue;
    SimTime first = SimTime::infinity();
    for (const auto& e : peer_out_[s])
      first = std::min(first, e.t);
    sent_events_[s] += peer_out_[s].size();
    // Acknowledgements come in order, so a batch whose reply bound is no
    // earlier than this one's never matters again once this one is sent:
    // dropping those keeps the bounds rising from front to back.
    auto& wait = unacked_[s];
    const SimTime reply = first + init_.cut_in[s];
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
  for (uint32_t r = 0; r < init_.shards; ++r) {
    if (r == init_.shard)
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
  const bool before_end = local < end_;
  for (uint32_t s = 0; s < init_.shards; ++s) {
    if (s == init_.shard)
      continue;
    const SimTime in = s == least_from ? second : least;
    const SimTime p = std::min(local, in) + init_.cut_lookahead[s];
    const SimTime from_s = bound_from(s);
    const bool need = !asked_[s] && (before_end ? from_s <= local : from_s < end_);
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
    const bool events = !peer_out_[s].empty();
    const bool answer = wanted_[s] && (rose || acks);
    const bool big = rose && p >= promise_sent_[s] + init_.cut_lookahead[s];
    if (!events && !need && !answer && !big)
      continue;
    event_batch b;
    b.kind = batch_kind::peer;
    b.time = p;
    b.from = init_.shard;
    b.need = need;
    asked_[s] = asked_[s] || need;
    if (rose || acks || events)
      wanted_[s] = 0; // answered (a question alone is no answer)
    b.acked = recv_events_[s];
    ack_sent_[s] = recv_events_[s];
    b.events.swap(peer_out_[s]);
    peer_out_[s] = spare();
    if (b.events.empty()) {
      ++stats_.peer_null_msgs;
    } else {
      ++stats_.peer_msgs;
      ++batches_sent_;
    }
    promise_sent_[s] = p;
    send(peers_[s], std::move(b));
  }
}

} // namespace kb
