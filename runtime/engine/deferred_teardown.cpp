#include "runtime/engine/deferred_teardown.hpp"

#include <utility>

namespace kb {

void deferred_teardown::start(std::function<void()> job) {
  wait();
  thread_ = std::thread(std::move(job));
}

void deferred_teardown::wait() {
  if (thread_.joinable())
    thread_.join();
}

} // namespace kb
