#pragma once
// Which shard runs each node (ADR-0009): every process's nodes, in id
// order, are cut into runs of whole groups (a group, e.g. a cube, is never
// split), balanced by node count.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kb {

struct shard_plan {
  uint32_t per_process = 1;    ///< shards in every process
  std::vector<uint32_t> owner; ///< shard of each node id (rank * per_process + k)
};

/// `names` in id order, `proc` the process of each node. `grouping` gives a
/// node's group key (null: every node is its own group). `shards` > 0 fixes
/// the shards per process; 0 picks one per thread, at most one per group of
/// the process with the fewest groups, and one when nothing is grouped and
/// the run has no end time. Throws std::invalid_argument naming two nodes of
/// one group placed in different processes.
shard_plan plan_shards(const std::vector<std::string>& names, const std::vector<uint32_t>& proc,
                       uint32_t ranks,
                       const std::function<std::string(const std::string&)>& grouping,
                       uint32_t shards, size_t threads, bool endless);

} // namespace kb
