#pragma once
// The end of a run's actor system on a thread of its own: dropping the last
// handles of some 12,000 actors and joining the workers takes ~40 ms on a
// 1,024-PE machine, and the caller can write its outputs meanwhile
// (`run_options::teardown`). wait() or the destructor joins it.

#include <functional>
#include <thread>

namespace kb {

class deferred_teardown {
public:
  deferred_teardown() = default;
  deferred_teardown(const deferred_teardown&) = delete;
  deferred_teardown& operator=(const deferred_teardown&) = delete;
  ~deferred_teardown() { wait(); }

  /// Runs `job` (which ends what it holds) on a new thread. One at a time:
  /// a second call first waits for the first.
  void start(std::function<void()> job);
  /// Returns once the dropped object is destroyed (at once if none is).
  void wait();

private:
  std::thread thread_;
};

} // namespace kb
