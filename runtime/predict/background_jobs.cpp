#include "runtime/predict/background_jobs.hpp"

#include <pthread.h>

namespace kb {

background_jobs& background_jobs::shared() {
  static background_jobs jobs;
  return jobs;
}

void background_jobs::enqueue(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
    if (!thread_.joinable())
      thread_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
}

void background_jobs::run() {
  pthread_setname_np(pthread_self(), "kb.predict"); // as perf and top show it
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping, and nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job(); // a packaged task: its exception goes to its future
  }
}

background_jobs::~background_jobs() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable())
    thread_.join();
}

} // namespace kb
