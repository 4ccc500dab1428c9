#include "runtime/engine/thread_probe.hpp"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

namespace kb {

void check_threads_can_start(size_t workers, const std::string& option) {
  const size_t count = workers + run_extra_threads;
  std::mutex mtx;
  std::condition_variable cv;
  bool release = false;
  std::vector<std::thread> started;
  started.reserve(count);
  std::string failure;
  for (size_t i = 0; i < count; ++i) {
    try {
      // Each waits, so that all `count` exist at once, as a run's would.
      started.emplace_back([&] {
        std::unique_lock<std::mutex> lock{mtx};
        cv.wait(lock, [&] { return release; });
      });
    } catch (const std::system_error& e) {
      failure = e.code().message();
      break;
    }
  }
  {
    std::lock_guard<std::mutex> lock{mtx};
    release = true;
  }
  cv.notify_all();
  for (auto& t : started)
    t.join();
  if (!failure.empty())
    throw std::invalid_argument(fmt::format(
      "{}: cannot start {} threads here ({} and {} of kernbench's own; {} after {}): the "
      "limit on processes and threads (ulimit -u, a container's pids limit) or memory does "
      "not allow them; ask for fewer",
      option, count, workers, run_extra_threads, failure, started.size()));
}

} // namespace kb
