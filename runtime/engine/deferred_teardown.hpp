#pragma once
// The end of a run's actor system on a thread of its own: dropping the last
// handles of some 12,000 actors and joining the workers takes ~40 ms on a
// 1,024-PE machine, and the caller can write its outputs meanwhile
// (`run_options::teardown`). Whatever else the run leaves to drop (the
// simulation's node table) goes the same way, after it. wait() or the
// destructor joins it.

#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace kb {

class deferred_teardown {
public:
  deferred_teardown() = default;
  deferred_teardown(const deferred_teardown&) = delete;
  deferred_teardown& operator=(const deferred_teardown&) = delete;
  ~deferred_teardown() { wait(); }

  /// Runs `job` (which ends what it holds) on the teardown thread, after the
  /// jobs started before it; starts the thread if none is running.
  void start(std::function<void()> job);
  /// Returns once every job started so far has run.
  void wait();

private:
  void drain();

  std::mutex mtx_;
  std::deque<std::function<void()>> jobs_; ///< not yet run
  bool running_ = false;                   ///< the thread takes from jobs_
  std::thread thread_;
};

} // namespace kb
