#pragma once
// Starts worker processes of a split run (this same executable) and waits
// for them; a worker that fails is reported by rank and exit status.

#include <string>
#include <sys/types.h>
#include <vector>

namespace kb {

class process_group {
public:
  process_group() = default;
  process_group(const process_group&) = delete;
  process_group& operator=(const process_group&) = delete;
  ~process_group();

  /// Starts `/proc/self/exe args...` as worker `rank`.
  void spawn(uint32_t rank, const std::vector<std::string>& args);
  /// Waits for all workers; returns an error text naming any that failed.
  std::string wait_all();

private:
  std::vector<std::pair<uint32_t, pid_t>> children_;
};

} // namespace kb
