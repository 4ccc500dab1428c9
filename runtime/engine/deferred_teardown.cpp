#include "runtime/engine/deferred_teardown.hpp"

#include <utility>

namespace kb {

void deferred_teardown::start(std::shared_ptr<void> garbage) {
  wait();
  thread_ = std::thread([g = std::move(garbage)]() mutable { g.reset(); });
}

void deferred_teardown::wait() {
  if (thread_.joinable())
    thread_.join();
}

} // namespace kb
