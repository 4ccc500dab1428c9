#pragma once
// What this process knows about its part of a split run, for reports and
// error messages outside the engine: the event batches it serialised for
// other processes (counted where CAF serialises them, `inspect` of
// event_batch, so only batches that really leave the process), and the
// simulated time its shards have reached.

#include "runtime/sim_time.hpp"

#include <atomic>
#include <cstdint>

namespace kb {

struct cross_process_counters {
  std::atomic<uint64_t> batches{0}; ///< event batches sent to another process
  std::atomic<uint64_t> events{0};  ///< events in them
  std::atomic<uint64_t> bytes{0};   ///< their Cap'n Proto bytes
  std::atomic<uint64_t> ring_batches{0}; ///< of them, through shared memory (peer_rings)
  std::atomic<uint64_t> reached_ps{0}; ///< safe time reached by this process's shards
};

/// This process's counters.
cross_process_counters& cross_process();

/// A batch of `events` events, `bytes` bytes left for another process.
inline void count_batch_out(uint64_t events, uint64_t bytes) {
  auto& c = cross_process();
  c.batches.fetch_add(1, std::memory_order_relaxed);
  c.events.fetch_add(events, std::memory_order_relaxed);
  c.bytes.fetch_add(bytes, std::memory_order_relaxed);
}

/// A shard of this process has run every event before `t`.
void note_reached(SimTime t);

} // namespace kb
