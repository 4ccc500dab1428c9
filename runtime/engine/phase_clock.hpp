#pragma once
// Where a run's wall time and memory go outside and inside its event loop
// (`kernbench run --timings`, the JSON's `timings`; issue 31): each mark
// ends the phase that began at the previous mark, or when the clock was
// made. Marks come from the thread that drives the run, never from the
// shards' own threads.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace kb {

/// This process's resident memory now (0 where /proc cannot tell).
uint64_t resident_bytes();
/// The most this process has held resident so far (getrusage).
uint64_t peak_resident_bytes();

class phase_clock {
public:
  struct phase {
    std::string name;
    double wall_s = 0;        ///< wall-clock seconds the phase took
    uint64_t rss_bytes = 0;   ///< resident memory when it ended
    bool event_loop = false;  ///< the shards' event loops (all else is "outside")
  };

  phase_clock();

  /// Ends the current phase under `name`.
  void mark(std::string name);
  /// Ends the current phase as two: first `loop_s` seconds of the event loop
  /// (as the shards measured it; at most the phase), then the rest as `rest`.
  /// With `wait_s` > 0 (a split run), a phase "wait for other processes"
  /// of that much comes first: the shards waited for the others' set-up.
  void mark_event_loop(double loop_s, std::string rest, double wait_s = 0);

  const std::vector<phase>& phases() const { return phases_; }
  /// Seconds from the clock's start to its last mark.
  double total_s() const;
  /// Seconds of every phase but the event loop.
  double outside_s() const;

private:
  std::chrono::steady_clock::time_point start_, last_;
  std::vector<phase> phases_;
};

} // namespace kb
