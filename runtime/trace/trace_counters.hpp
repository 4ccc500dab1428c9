#pragma once
// Counter tracks of a Chrome/Perfetto trace (docs/adr/0039): values that
// step up when something starts and down when it ends (a memory server's
// requests waiting or in service, a link's bytes in flight). The trace's
// records come in time order but an end is known when its start is, so
// the steps down wait here, ordered by time, until the writer has passed
// them; each counter's samples are written in time order.

#include "runtime/engine/event.hpp"

#include <cstdint>
#include <map>
#include <ostream>
#include <queue>
#include <string>
#include <vector>

namespace kb {

class trace_counters {
public:
  /// One counter: a track `name` of process `pid`, whose samples carry
  /// its value as `arg` ("requests", "bytes").
  struct counter {
    int pid;
    std::string name;
    std::string arg;
    int64_t value = 0;
    bool floor = false; ///< never below 0 (a window's queue: what came before it is not seen)
    bool known = true;  ///< false: no sample until the first set() (steps before it are dropped)
  };

  /// The counter `name` of `pid` (made at 0 the first time; `floor`: it
  /// never goes below 0; `known`: false, its value is unknown until it is
  /// first set, e.g. the credits of a link used before a trace's window).
  size_t find(int pid, const std::string& name, const std::string& arg, bool floor = false,
              bool known = true);
  /// Steps counter `c` by `delta` at `t` (written at once, after the
  /// steps due by then).
  void step(size_t c, SimTime t, int64_t delta, std::ostream& out, bool& first);
  /// Sets counter `c` to `value` at `t` (written at once, after the steps
  /// due by then).
  void set(size_t c, SimTime t, int64_t value, std::ostream& out, bool& first);
  /// Steps counter `c` by `delta` at `t`, written when the writer passes
  /// `t` (flush).
  void later(size_t c, SimTime t, int64_t delta);
  /// Writes the steps due at or before `t` (all of them: infinity).
  void flush(SimTime t, std::ostream& out, bool& first);

private:
  struct due {
    SimTime t;
    uint64_t order; ///< ties in the order the steps were made
    size_t counter;
    int64_t delta;
    bool operator>(const due& o) const { return t != o.t ? t > o.t : order > o.order; }
  };
  void write(size_t c, SimTime t, std::ostream& out, bool& first);
  void add(size_t c, int64_t delta);

  std::vector<counter> counters_;
  std::map<std::pair<int, std::string>, size_t> index_;
  std::priority_queue<due, std::vector<due>, std::greater<>> dues_;
  uint64_t order_ = 0;
};

} // namespace kb
