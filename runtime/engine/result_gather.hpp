#pragma once
// A run's results gathered without actors (docs/adr/0001-synchronisation.md,
// "the end of a run"): a hub's own nodes' summaries, the parts the other
// shards hand in to shard 0, and what a shard that went down took with it.
// The hub asks and answers over CAF; what it keeps and how parts add up is
// here (tests/runtime/result_gather_test.cpp).

#include "runtime/engine/protocol.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

class result_gather {
public:
  /// What has been gathered so far (a shard other than 0 hands it in).
  run_result& result() { return result_; }
  void add(node_summary s) { result_.nodes.push_back(std::move(s)); }
  /// Shard `shard` went down: its nodes' results are lost with it.
  void lost(uint32_t shard) { lost_.push_back(shard); }
  /// This shard's own part is complete: its figures, whether a stop ended
  /// it, its error (unless it has one already).
  void close_own(const hub_stats& stats, bool stopped, const std::string& error);
  /// Shard 0, before the parts come in: a lost shard is the run's error,
  /// unless it has one already (the lowest lost shard is named). Never a
  /// result that looks complete without a lost shard's nodes.
  void require_all();
  /// Adds the part shard `shard` handed in: its nodes (moved), its figures
  /// (summed; the longest run wall time), its stop, and its error when the
  /// run has none yet, prefixed with the shard.
  void merge(run_result& part, uint32_t shard);
  /// The run's result: the nodes in id order, the count of shards.
  run_result finish(uint32_t shards);

private:
  run_result result_;
  std::vector<uint32_t> lost_;
};

} // namespace kb
