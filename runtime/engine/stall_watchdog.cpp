#include "runtime/engine/stall_watchdog.hpp"

#include <algorithm>

namespace kb {

stall_watchdog::stall_watchdog(std::chrono::milliseconds timeout,
                               std::function<bool(std::chrono::milliseconds)> on_stall)
  : timeout_(timeout), on_stall_(std::move(on_stall)) {
  if (timeout_.count() > 0 && on_stall_)
    thread_ = std::thread([this] { watch(); });
}

stall_watchdog::~stall_watchdog() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void stall_watchdog::watch() {
  // Looks a few times per timeout, at most every 250 ms.
  const auto step = std::clamp(timeout_ / 4, std::chrono::milliseconds(10),
                               std::chrono::milliseconds(250));
  uint64_t seen = engine_progress().load(std::memory_order_relaxed);
  clock::time_point since = clock::now();
  std::unique_lock<std::mutex> lock(m_);
  while (!cv_.wait_for(lock, step, [this] { return stop_; })) {
    const uint64_t now_seen = engine_progress().load(std::memory_order_relaxed);
    const clock::time_point now = clock::now();
    if (now_seen != seen) {
      seen = now_seen;
      since = now;
      continue;
    }
    const auto stalled = std::chrono::duration_cast<std::chrono::milliseconds>(now - since);
    if (stalled >= timeout_) {
      lock.unlock();
      if (on_stall_(stalled))
        return;
      lock.lock();
    }
  }
}

} // namespace kb
