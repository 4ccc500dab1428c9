#pragma once
// The progress line of a long `kernbench run`: every ~2 s on standard error,
// simulated time, events/s, commands done of total and an estimate of the
// time left. A thread of its own reads the run's progress_counters; it never
// touches the simulation, so results do not depend on it.

#include "runtime/trace/progress_recorder.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace kb {

struct progress_totals {
  uint64_t tiles = 0;    ///< of all commands on all PEs (0: unknown)
  uint64_t commands = 0; ///< of all PEs
};

/// The heartbeat period: KB_HEARTBEAT_MS if set (tests use a short one),
/// else 2 s.
std::chrono::milliseconds heartbeat_interval();

/// One progress line, e.g. "kernbench run: 6.0 s: simulated 1234.567 us,
/// 2.10 M events/s, 3/8 commands done, 41% of tiles, about 8 s left";
/// `events_per_s` and `tiles_per_s` are the rates since the previous line;
/// the time left is the tiles left at that tile rate.
std::string progress_line(const std::string& who, double wall_s, double events_per_s,
                          double tiles_per_s, const progress_counters& c,
                          const progress_totals& totals);

class heartbeat {
public:
  /// Starts the thread; the first line comes after one interval, so a short
  /// run prints nothing.
  heartbeat(std::string who, std::shared_ptr<const progress_counters> counters,
            progress_totals totals, std::chrono::milliseconds interval,
            std::FILE* out = stderr);
  heartbeat(const heartbeat&) = delete;
  heartbeat& operator=(const heartbeat&) = delete;
  /// Stops the thread (at once, not at the next tick).
  ~heartbeat();

private:
  void loop();

  std::string who_;
  std::shared_ptr<const progress_counters> counters_;
  progress_totals totals_;
  std::chrono::milliseconds interval_;
  std::FILE* out_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace kb
