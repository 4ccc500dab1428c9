#include "runtime/engine/deferred_teardown.hpp"

#include <utility>

namespace kb {

void deferred_teardown::start(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    jobs_.push_back(std::move(job));
    if (running_)
      return; // the running thread takes it after the others
    running_ = true;
  }
  if (thread_.joinable()) // it ran out of jobs and is ending: no lock left to take
    thread_.join();
  thread_ = std::thread([this] { drain(); });
}

void deferred_teardown::drain() {
  for (;;) {
    std::function<void()> job;
    {
      std::lock_guard<std::mutex> guard{mtx_};
      if (jobs_.empty()) {
        running_ = false;
        return;
      }
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
    job = nullptr; // what it held ends here, on this thread
  }
}

void deferred_teardown::wait() {
  if (thread_.joinable())
    thread_.join();
}

} // namespace kb
