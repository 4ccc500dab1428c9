#pragma once
// One process-wide thread that runs pure jobs off the simulated path, in the
// order they were submitted (ADR-0019): the II prediction of a large body
// starts when its command arrives and is waited for at the end of the run,
// so it overlaps the simulation instead of following it. A job owns (or
// shares) everything it reads; the submitter waits on the future before it
// uses the result, so no node's state is read by another thread.

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

namespace kb {

class background_jobs {
public:
  /// The process's runner; its thread starts with the first job.
  static background_jobs& shared();

  /// Runs `job` on the runner's thread after the jobs submitted before it.
  /// Its result, or the exception it threw, comes out of the future.
  template <class T>
  std::future<T> submit(std::function<T()> job) {
    auto task = std::make_shared<std::packaged_task<T()>>(std::move(job));
    std::future<T> out = task->get_future();
    enqueue([task] { (*task)(); });
    return out;
  }

  background_jobs(const background_jobs&) = delete;
  background_jobs& operator=(const background_jobs&) = delete;
  ~background_jobs(); ///< runs what is queued, then joins

private:
  background_jobs() = default;
  void enqueue(std::function<void()> job);
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace kb
