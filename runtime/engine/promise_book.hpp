#pragma once
// One shard's book of promises with the other shards of a run: the
// conservative protocol's bounds without the actors that carry them
// (docs/adr/0001-synchronisation.md null messages, ADR-0014 promises that
// exclude their addressee, ADR-0029 promises on demand). No CAF here: the
// hub feeds it what it sends and receives and asks it what is safe and
// what to promise to whom (tests/runtime/promise_book_test.cpp drives it
// by hand).
//
// Per other shard r it keeps
// - the promise r last made here (`promise_in`): nothing from r before it,
//   raised by an LBTS jump's floor and never lowered below one;
// - the events sent to r that r has not acknowledged yet, as (count so
//   far, reply bound): a reaction to them may come back from r as soon as
//   their earliest time plus the shortest link from r to here, whatever r
//   promised, since r's promise leaves out this shard's own (ADR-0014);
// - the question-and-answer state of ADR-0029: r said it is blocked on
//   this shard (`wanted`), or this shard said so to r (`asked`).

#include "runtime/engine/event.hpp"
#include "runtime/sim_time.hpp"

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace kb {

class promise_book {
public:
  /// `cut_lookahead[s]`: the shortest latency into shard s from this one
  /// (what a promise to s adds); `cut_in[r]`: the shortest from r to here.
  promise_book(uint32_t shard, uint32_t shards, std::vector<SimTime> cut_lookahead,
               std::vector<SimTime> cut_in);

  uint32_t shard() const { return shard_; }
  uint32_t shards() const { return shards_; }

  /// The earliest time anything may still arrive from shard `r`: its
  /// promise, or sooner a reply to events sent to it that it has not
  /// acknowledged yet.
  SimTime bound_from(uint32_t r) const;
  /// The minimum of bound_from over every other shard (the safe time), or
  /// over every other shard but `except`.
  SimTime promise_in_min(uint32_t except = UINT32_MAX) const;
  /// Shard `s` said it is blocked on this one and has not been answered.
  bool wanted(uint32_t s) const { return wanted_[s] != 0; }

  /// A batch from shard `from`: its promise `time`, the count of this
  /// shard's events it has seen (`acked`), whether it asks (`need`) and
  /// how many events it carries.
  void received(uint32_t from, SimTime time, uint64_t acked, bool need, size_t events);

  /// What this shard sends shard `to` now: a promise, with the events
  /// bound for it (if any), its question and its acknowledgement.
  struct promise {
    uint32_t to = 0;
    SimTime time;
    bool need = false;
    uint64_t acked = 0;
  };
  /// After a step whose earliest local event is `local` (run ends at
  /// `end`), with `out[s]` the events bound for shard s: the batches to
  /// send, in shard order. A shard gets one when it gets events, when
  /// this shard is blocked on it and has not asked yet, when it asked and
  /// the promise rose or acknowledgements are due, or when the promise
  /// rose by a whole cut lookahead; otherwise its older, lower promise
  /// stands. The result stays valid until the next call.
  std::span<const promise> promises(SimTime local, SimTime end,
                                    const std::vector<std::vector<sim_event>>& out);

  /// An LBTS round found nothing anywhere before `lbts`: nothing from r
  /// arrives before lbts plus the shortest link from r to here.
  void apply_jump(SimTime lbts);

private:
  struct unacked {
    uint64_t upto;  ///< events sent to the shard so far, this batch's last
    SimTime reply;  ///< the earliest time a reaction can arrive here
  };
  uint32_t shard_;
  uint32_t shards_;
  std::vector<SimTime> cut_lookahead_;
  std::vector<SimTime> cut_in_;
  std::vector<SimTime> promise_in_;   ///< per shard
  std::vector<SimTime> promise_sent_; ///< per shard
  std::vector<uint64_t> sent_events_; ///< per shard: events sent to it
  std::vector<uint64_t> recv_events_; ///< per shard: events received from it
  std::vector<uint64_t> ack_sent_;    ///< per shard: recv_events_ it was last told
  /// Per shard, its batches not yet acknowledged, only those whose reply
  /// bound is below every later one's, so the front holds the minimum.
  std::vector<std::deque<unacked>> unacked_;
  std::vector<SimTime> floor_; ///< per shard: the last LBTS jump's bound on it
  std::vector<char> wanted_;   ///< per shard: it asked, not yet answered
  /// Per shard: this shard said it is blocked on it, and nothing has come
  /// from it since.
  std::vector<char> asked_;
  std::vector<SimTime> last_in_;   ///< per shard: the last promise it sent here
  std::vector<uint64_t> acked_in_; ///< per shard: the last acknowledgement it sent
  std::vector<promise> due_;       ///< the result of promises()
};

} // namespace kb
