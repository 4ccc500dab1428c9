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
/// How many shards a process may run at once: one per thread, and in a run
/// of one process also one per core of this host; in a split run whose
/// processes all run on this host (`one_host`: started here, --procs) one
/// per core shared out among them. Else a split run's processes must agree
/// on it, and another host's cores are not known here: threads only.
size_t shard_lanes(size_t threads, uint32_t ranks, bool one_host = false);

/// The shards a process runs when `asked` (0: the default) are asked for
/// with `lanes` (shard_lanes): at most one per lane. Shards that share a
/// core only add promises between them (16 cube shards on 2 threads: 1.4
/// sync messages per event against none for 2; ADR-0029).
uint32_t shards_to_run(uint32_t asked, size_t lanes);

/// What a run says when it runs fewer shards than asked ("" when it does
/// not): the option, what was asked and what runs.
std::string shards_note(uint32_t asked, size_t threads, uint32_t ranks, bool one_host = false);

/// `group_key(i)`: node i's group (an empty key, or no function: a group
/// of its own); `names` name the nodes in errors (empty: known by id only).
shard_plan plan_shards(const std::vector<std::string>& names, const std::vector<uint32_t>& proc,
                       uint32_t ranks, const std::function<std::string(uint32_t)>& group_key,
                       uint32_t shards, size_t threads, bool endless);

} // namespace kb
