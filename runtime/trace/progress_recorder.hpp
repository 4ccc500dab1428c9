#pragma once
// Counters a heartbeat thread reads while a run goes (`kernbench run`
// prints them every ~2 s), fed by a recorder in front of each node's trace
// recorder (or alone when nothing is traced). Counting never changes what
// the nodes do, so results are the same with or without it.

#include "runtime/engine/recorder.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace kb {

/// Shared by all nodes' progress recorders; relaxed atomics, read by
/// another thread for display only.
struct progress_counters {
  std::atomic<uint64_t> events{0};          ///< in batches of recorder::progress_batch
  std::atomic<uint64_t> max_time_ps{0};     ///< latest simulated time seen
  std::atomic<uint64_t> tiles_ready{0};     ///< tiles whose last stage finished
  std::atomic<uint64_t> commands_done{0};
  std::atomic<bool> running{false};         ///< set-up over: the event loop runs
};

class progress_recorder final : public recorder {
public:
  /// `inner` (may be null) gets every call and keeps the records.
  progress_recorder(std::shared_ptr<progress_counters> c, std::shared_ptr<recorder> inner)
    : c_(std::move(c)), inner_(std::move(inner)) {}

  void record(trace_kind kind, SimTime t, node_id node, const service_tag& tag) override;
  void message(const message_note& m, const service_tag& tag) override;
  void service(SimTime t, node_id node, SimTime begin, SimTime end,
               const service_tag& tag) override;
  bool wants_hops() const override { return inner_ && inner_->wants_hops(); }
  bool wants_services() const override { return inner_ && inner_->wants_services(); }
  void events(uint64_t n, SimTime now) override;
  std::vector<char> take_records() override;

private:
  void advance(SimTime t);

  std::shared_ptr<progress_counters> c_;
  std::shared_ptr<recorder> inner_;
};

} // namespace kb
