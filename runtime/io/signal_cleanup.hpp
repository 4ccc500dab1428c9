#pragma once
// What a process leaves behind when SIGINT, SIGTERM or SIGHUP ends it:
// nothing of its own. Temporary files and folders it registers are removed
// and the child processes it registers are ended (SIGTERM, then SIGCONT for
// a stopped one); then the signal takes its default action, so the exit
// status still says which signal ended it (130, 143, ...). A 229-320 MB
// `--trace-stream` temporary, op logs and sweep folders used to stay
// (issue 35).
//
// Except while a run's event loop goes (stop_request::armed, ADR-0030): then
// the first SIGINT or SIGTERM only asks the run to stop at its next safe
// point, so that it reports and writes what it has; a second one ends the
// process as above.
//
// The handler is async-signal-safe: fixed slots of fixed-size paths, each
// claimed and released with atomics; unlink, unlinkat, rmdir, open,
// getdents64 and kill are all it calls. A folder is removed one level deep
// (the temporary folders kernbench makes are flat).

#include <sys/types.h>

#include <string>

namespace kb::signal_cleanup {

/// Installs the handlers (once; later calls do nothing). main() calls it.
void install();

/// Does now what a signal would: removes every registered file and folder
/// and ends every registered process. Async-signal-safe: a fault handler
/// that ends the process with _exit calls it first (runtime/kernel/
/// kernel_fault.hpp, ADR-0042).
void remove_now();

/// A worker process of a split run: SIGINT is ignored from now on. A
/// terminal's Ctrl-C reaches every process of its group, and rank 0 stops
/// the whole run through its shards (ADR-0030); SIGTERM still ends it.
void ignore_interrupt();

/// A registration; release it when the thing is gone or kept. Moves only.
class entry {
public:
  entry() = default;
  entry(entry&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  entry& operator=(entry&& o) noexcept;
  entry(const entry&) = delete;
  entry& operator=(const entry&) = delete;
  ~entry() { release(); }
  /// No longer removed or ended on a signal.
  void release();
  bool active() const { return slot_ >= 0; }

private:
  friend entry file(const std::string&);
  friend entry folder(const std::string&);
  friend entry process(pid_t);
  explicit entry(int slot) : slot_(slot) {}
  int slot_ = -1;
};

/// Removes `path` on a signal. A path too long, or all slots taken: an
/// inactive entry (then the thing is not cleaned up on a signal).
entry file(const std::string& path);
/// Removes the folder `path` and the files in it on a signal.
entry folder(const std::string& path);
/// Ends process `pid` on a signal.
entry process(pid_t pid);

} // namespace kb::signal_cleanup
