#include "runtime/engine/result_gather.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace kb {

void result_gather::close_own(const hub_stats& stats, bool stopped, const std::string& error) {
  result_.hub = stats;
  result_.stopped = result_.stopped || stopped;
  if (result_.error.empty())
    result_.error = error;
}

void result_gather::require_all() {
  if (!lost_.empty() && result_.error.empty()) {
    std::sort(lost_.begin(), lost_.end());
    result_.error = fmt::format("shard {} stopped before handing in its results (its "
                                "process ended?); the run's results are incomplete",
                                lost_.front());
  }
}

void result_gather::merge(run_result& part, uint32_t shard) {
  for (auto& n : part.nodes)
    result_.nodes.push_back(std::move(n));
  hub_stats& h = result_.hub;
  h.windows += part.hub.windows;
  h.advance_msgs += part.hub.advance_msgs;
  h.report_msgs += part.hub.report_msgs;
  h.peer_msgs += part.hub.peer_msgs;
  h.peer_null_msgs += part.hub.peer_null_msgs;
  h.lbts_msgs += part.hub.lbts_msgs;
  h.lbts_jumps += part.hub.lbts_jumps;
  h.yield_msgs += part.hub.yield_msgs;
  h.run_wall_ns = std::max(h.run_wall_ns, part.hub.run_wall_ns);
  result_.stopped = result_.stopped || part.stopped;
  if (result_.error.empty() && !part.error.empty())
    result_.error = fmt::format("shard {}: {}", shard, part.error);
}

run_result result_gather::finish(uint32_t shards) {
  result_.hub.shards = shards;
  std::sort(result_.nodes.begin(), result_.nodes.end(),
            [](const node_summary& a, const node_summary& b) { return a.node < b.node; });
  return std::move(result_);
}

} // namespace kb
