#include "runtime/engine/hub.hpp"

#include "runtime/io/stop_request.hpp"

#include <algorithm>

#include <fmt/format.h>

// The end of a hub's run (docs/adr/0001-synchronisation.md): a failure or
// a stop request (ADR-0030) ends it early; the node summaries are collected
// and shard 0 gathers every shard's part.

namespace kb {

void hub::fail(std::string why) {
  if (error_.empty())
    error_ = std::move(why);
  if (!halt_sent_) {
    // The other shards stop too: one waiting for this shard's promises
    // would otherwise wait forever, and shard 0 for its results.
    halt_sent_ = true;
    for (uint32_t s = 0; s < peers_.size(); ++s)
      if (s != init_.shard && peers_[s])
        send(peers_[s], halt_atom_v, init_.shard, error_);
  }
  if (!done_) {
    done_ = true;
    outstanding_ = 0;
    collect();
  }
}

void hub::stop() {
  if (stopped_ || done_)
    return;
  stopped_ = true;
  if (!halt_sent_) {
    // Every shard stops, each at the end of its own window: a shard that
    // ran on would wait for promises that never come.
    halt_sent_ = true;
    for (uint32_t s = 0; s < peers_.size(); ++s)
      if (s != init_.shard && peers_[s])
        send(peers_[s], halt_atom_v, init_.shard, std::string(stop_reason));
  }
  done_ = true;
  outstanding_ = 0;
  collect();
}

void hub::collect() {
  if (rings_)
    rings_idle(); // done: a late question comes with a doorbell
  if (init_.shard == 0)
    ask_parts();
  stats_.run_wall_ns = static_cast<uint64_t>(
    std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now() - started_at_)
      .count());
  if (loop_) { // direct delivery: the loop asks its nodes itself
    loop_->summarize(gather_.result().nodes, error_);
    deliver();
    return;
  }
  summaries_due_ = local_.size();
  next_summary_ = 0;
  if (summaries_due_ == 0) {
    deliver();
    return;
  }
  // At most `summary_window` requests are out at a time: CAF keeps the
  // handlers of pending responses in a flat map searched linearly, so
  // 65,536 requests at once cost O(nodes^2) (3 s of a 65,536-LP PHOLD).
  constexpr size_t summary_window = 64;
  for (size_t k = 0; k < summary_window; ++k)
    request_summary();
}

void hub::request_summary() {
  if (next_summary_ == local_.size())
    return;
  const node_id id = local_[next_summary_++];
  auto got_one = [this] {
    if (--summaries_due_ == 0)
      deliver();
    else
      request_summary();
  };
  request(init_.tables->nodes[id], caf::infinite, finish_atom_v)
    .then(
      [this, got_one](node_summary& s) {
        gather_.add(std::move(s));
        got_one();
      },
      [this, got_one](caf::error& e) {
        if (error_.empty())
          error_ = "collecting node summaries failed: " + to_string(e);
        got_one();
      });
}

void hub::deliver() {
  collected_ = true;
  gather_.close_own(stats_, stopped_, error_);
  run_result& result = gather_.result();
  if (init_.shard != 0) {
    // A shard hands its part to shard 0 when asked, then finishes.
    if (collect_rps_.empty())
      return;
    // The part is moved out to the last asker (8,000 node summaries are
    // not copied); only the hub's figures and the error are read later.
    for (size_t k = 0; k + 1 < collect_rps_.size(); ++k)
      collect_rps_[k].deliver(result);
    collect_rps_.back().deliver(std::move(result));
    collect_rps_.clear();
    // This shard's process may end once the run request is answered, and
    // a reply still on its way out could be lost with it (a split run then
    // waited 120 s for a part that never came): answer when shard 0 says
    // it has the part, or has gone.
    part_handed_in_ = true;
    return;
  }
  ask_parts(); // asked already, unless collect() was never called
  gather_.require_all();
  // What came meanwhile, in the order it came: as if it came now.
  auto early = std::move(early_parts_);
  const bool waits = parts_due_ > 0;
  for (auto& [s, part, why] : early)
    on_part(s, why.empty() ? &part : nullptr, std::move(why));
  if (!waits)
    finish_root();
}

void hub::ask_parts() {
  if (parts_asked_)
    return;
  parts_asked_ = true;
  parts_due_ = 0;
  for (uint32_t s = 1; s < init_.shards; ++s)
    parts_due_ += peers_[s] ? 1 : 0;
  for (uint32_t s = 1; s < init_.shards; ++s) {
    if (!peers_[s])
      continue;
    request(peers_[s], std::chrono::seconds(120), collect_atom_v)
      .then(
        [this, s](run_result& part) {
          handed_in_.resize(init_.shards, 0);
          handed_in_[s] = 1;
          send(peers_[s], release_atom_v);
          if (collected_)
            on_part(s, &part, {});
          else
            early_parts_.emplace_back(s, std::move(part), std::string());
        },
        [this, s](caf::error& e) {
          std::string why = fmt::format("shard {} did not hand in its results: {}", s,
                                        to_string(e));
          if (collected_)
            on_part(s, nullptr, std::move(why));
          else
            early_parts_.emplace_back(s, run_result{}, std::move(why));
        });
  }
}

void hub::on_part(uint32_t shard, run_result* part, std::string why) {
  if (part)
    gather_.merge(*part, shard);
  else if (gather_.result().error.empty())
    gather_.result().error = std::move(why);
  if (--parts_due_ == 0)
    finish_root();
}

void hub::finish_part() {
  const run_result& r = gather_.result();
  if (run_rp_.pending())
    run_rp_.deliver(run_result{r.hub, {}, r.error, r.stopped});
}

void hub::finish_root() {
  if (run_rp_.pending())
    run_rp_.deliver(gather_.finish(init_.shards)); // nothing reads it after this
}

} // namespace kb
