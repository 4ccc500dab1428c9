#pragma once
// Starts worker processes of a split run (this same executable) and waits
// for them; a worker that fails is reported by rank and exit status. Used
// for `phold --procs` workers, the local peers of `run --procs`
// (peer_group) and the part a `kernbench peer` runs (peer_command).
//
// No process outlives a lost peer: every worker holds the read end of a
// "lifeline" pipe whose write end only this process holds, so when it ends
// (however it dies) the workers see end-of-file and exit
// (`watch_lifeline`); and a monitor thread here notices a worker that dies
// early, stops the others and, unless the run ends on its own first, ends
// this process within `grace` with the worker named (unless the owner
// watches its workers itself: `watch` off).

#include "runtime/io/signal_cleanup.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace kb {

/// Where a worker's output goes (default: this process's).
struct worker_output {
  bool stdout_pipe = false; ///< spawn() returns the read end of a pipe
  std::string stderr_file;  ///< standard error to this file
};

class process_group {
public:
  /// `who` prefixes messages ("kernbench phold"). With `watch` off there
  /// is no monitor: the owner watches the workers some other way (a peer
  /// connection) and calls `poll` or `wait_all`.
  explicit process_group(std::string who = "kernbench",
                         std::chrono::milliseconds grace = std::chrono::seconds(5),
                         bool watch = true);
  process_group(const process_group&) = delete;
  process_group& operator=(const process_group&) = delete;
  ~process_group();

  /// Starts `/proc/self/exe args...` as worker `rank`; returns its pid, and
  /// with `out.stdout_pipe` the read end of its standard output in `*pipe_fd`
  /// (the caller closes it). With `stdin_fd`, the worker's standard input is
  /// one end of a socket pair and `*stdin_fd` the other (the caller writes
  /// with MSG_NOSIGNAL and closes it).
  pid_t spawn(uint32_t rank, const std::vector<std::string>& args,
              const worker_output& out = worker_output{}, int* pipe_fd = nullptr,
              int* stdin_fd = nullptr);
  /// Whether every worker has ended (reaps those that have).
  bool all_ended();
  /// A descriptor that becomes readable when worker `pid` ends (its pidfd),
  /// to poll beside others; -1 where the kernel has no pidfd_open (then
  /// poll `all_ended` on a short timeout). Owned by this group.
  int end_fd(pid_t pid) const;
  /// Sends SIGTERM to every worker still running.
  void terminate();
  /// Waits for all workers; returns one line per worker that failed
  /// ("<who>: worker process R (pid P) was killed by signal 9 (Killed) during
  /// the run\n") unless the monitor already printed it.
  std::string wait_all();

private:
  struct child {
    uint32_t rank;
    pid_t pid;
    int pidfd = -1; ///< readable once it ends (end_fd)
    bool reaped = false;
    bool reported = false; ///< its failure is already on stderr
    int status = 0;
    /// When the monitor first saw it stopped (SIGSTOP, a debugger); reset
    /// when it runs again.
    std::optional<std::chrono::steady_clock::time_point> stopped_since;
    /// Ended with this process on SIGINT/SIGTERM (shared: children_ is copied
    /// out in places; the entry goes with the last copy).
    std::shared_ptr<signal_cleanup::entry> on_signal;
  };
  std::string failure(const child& c) const;
  void monitor();
  void stop_monitor();
  void terminate_others(pid_t except);
  /// A worker stopped for `stop_limit` or more: named on stderr, true.
  bool stopped_too_long(child& c);

  std::string who_;
  std::chrono::milliseconds grace_;
  bool watch_ = true;
  int lifeline_[2] = {-1, -1};
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<child> children_;
  std::thread monitor_;
};

/// Worker side: if this process was started by a process_group (it passes
/// the lifeline in KB_LIFELINE_FD), a thread waits on it and, when the
/// parent is gone, prints "<who>: lost the parent process (rank 0); exiting"
/// and exits with status 1. Returns whether a lifeline was found.
bool watch_lifeline(const std::string& who);

/// "exited with status 3" / "was killed by signal 9" for a waitpid status.
std::string describe_exit(int status);

} // namespace kb
