#pragma once
// A wall-clock watchdog over the engine's progress (`kernbench run
// --stall-timeout S`): every shard loop and node batch counts the events it
// handled into one process-wide counter; when that counter has not moved
// for the timeout, the watchdog calls its handler on its own thread. The
// run cannot be unwound from there (a kernel that loops without calling
// tl:: holds its shard's thread), so the handler reports and ends the
// process. Counting never changes what the nodes do.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace kb {

/// Events (and set-up steps) the engine has handled in this process.
inline std::atomic<uint64_t>& engine_progress() {
  static std::atomic<uint64_t> count{0};
  return count;
}

/// Counts `n` more (relaxed: read by the watchdog only).
inline void note_progress(uint64_t n = 1) {
  engine_progress().fetch_add(n, std::memory_order_relaxed);
}

class stall_watchdog {
public:
  using clock = std::chrono::steady_clock;
  /// Watches from now on; when engine_progress() has stood still for
  /// `timeout`, `on_stall(stalled_for)` is called on the watchdog's thread,
  /// and again at each later look while it stands still, until it returns
  /// true (it has dealt with it; the watchdog stops). A zero timeout
  /// watches nothing.
  stall_watchdog(std::chrono::milliseconds timeout,
                 std::function<bool(std::chrono::milliseconds)> on_stall);
  /// Stops watching (joins the thread).
  ~stall_watchdog();
  stall_watchdog(const stall_watchdog&) = delete;
  stall_watchdog& operator=(const stall_watchdog&) = delete;

private:
  void watch();

  std::chrono::milliseconds timeout_;
  std::function<bool(std::chrono::milliseconds)> on_stall_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace kb
