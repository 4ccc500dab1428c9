#pragma once
// What every shard of a process reads by node id: one copy per process,
// shared by its hubs and their loops, not one per shard (on the
// 16,384-PE machine each of 16 shards held a copy of every table; issue 31).

#include "runtime/engine/event.hpp"

#include <caf/actor.hpp>

#include <cstdint>
#include <vector>

namespace kb {

class node;

struct shard_tables {
  std::vector<uint32_t> owner; ///< shard of each node id
  /// Each node's number among its own shard's nodes, in id order.
  std::vector<uint32_t> local_number;
  std::vector<caf::actor> nodes; ///< by node id; invalid for other processes
  /// Direct delivery: the node by id (null for other processes); empty:
  /// mailbox delivery (windows).
  std::vector<node*> direct;
};

} // namespace kb
