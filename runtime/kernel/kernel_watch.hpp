#pragma once
// What each kernel of this process is doing, readable from another thread:
// the stall watchdog (`kernbench run --stall-timeout`) names every kernel
// that has not returned and what it is blocked on, including one that runs
// its own code and never calls tl:: (its PE's thread is inside it). Each
// kernel_context owns one entry; entries register themselves while alive.

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace kb {

class kernel_watch {
public:
  /// Registers the kernel `kernel` on PE `pe` ("sip0.cube0.pe3").
  kernel_watch(std::string pe, std::string kernel);
  ~kernel_watch();
  kernel_watch(const kernel_watch&) = delete;
  kernel_watch& operator=(const kernel_watch&) = delete;

  /// The kernel's fiber is about to run its code.
  void running();
  /// It suspended: `why` is what it waits for ("waits for command 7 (...)").
  void waiting(const std::string& why);
  /// It returned (or failed).
  void returned();

  /// One line per registered kernel that has not returned, by PE name:
  /// "sip0.cube0.pe1: kernel spin has run its own code for 2.0 s without a
  /// tl:: call", "sip0.cube0.pe0: kernel spin waits for command 3 (...)".
  static std::vector<std::string> report();
  /// Whether a kernel of this process is running its own code now.
  static bool any_running();

private:
  enum class state { created, running, waiting, returned };
  std::string line() const;

  const std::string pe_, kernel_;
  mutable std::mutex m_;
  state state_ = state::created;
  std::chrono::steady_clock::time_point since_{};
  std::string why_;
};

} // namespace kb
