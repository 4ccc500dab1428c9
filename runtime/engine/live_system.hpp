#pragma once
// A run's actor system with the handles that keep its actors alive, and its
// end: hubs, then nodes, then the system. The nodes are built by one thread
// per group of shards (simulation::run), and each group is dropped by a
// thread of its own as well, so that no two threads free into the memory
// one builder allocated.

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace kb {

struct live_system {
  caf::actor_system_config cfg;
  std::optional<caf::actor_system> sys;
  /// The local hubs by shard number, in shard order.
  std::vector<std::pair<uint32_t, caf::actor>> hubs;
  /// The local nodes by builder (shard group), in id order within each.
  std::vector<std::vector<caf::actor>> nodes;
  /// The group of shard s is (s - first_local) % nodes.size().
  uint32_t first_local = 0;
  /// release() first sends each actor its exit (hubs first, a group per
  /// thread), for a run that left that to the deferred teardown.
  bool exit_on_release = false;

  live_system() = default;
  live_system(const live_system&) = delete;
  live_system& operator=(const live_system&) = delete;
  ~live_system() { release(); }

  /// Drops every handle, a group per thread, then ends the system.
  void release();
};

} // namespace kb
