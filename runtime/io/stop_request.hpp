#pragma once
// A run stopped by SIGINT or SIGTERM at its next safe point
// (docs/adr/0030-runs-that-stop-cleanly.md).
//
// While a `stop_request::armed` scope exists (the event loop of a `run`),
// the first SIGINT or SIGTERM does not end the process: the signal handler
// (runtime/io/signal_cleanup.cpp) records it here, and every shard's hub
// sees it when it next finishes a window, stops there and hands in its node
// summaries, so the run ends with the figures of everything simulated so
// far. A second signal, or one outside the scope, ends the process at once.
//
// The state is process-wide (signals are): two atomics, read with relaxed
// loads once per window. request() is async-signal-safe. It sits in kb_io
// beside the signal handler, below the engine that reads it.

namespace kb::stop_request {

/// The signal that asked the run to stop (SIGINT, SIGTERM), or 0.
int signal();
inline bool requested() { return signal() != 0; }

/// Records `sig` if nothing was recorded before; true if this call did.
/// Async-signal-safe.
bool request(int sig);

/// Whether a first signal stops the run at a safe point (an `armed` scope
/// exists) rather than ending the process.
bool is_armed();

/// Forgets a recorded signal (a process that runs again, e.g. the Python
/// module between runs; never while a run is in flight).
void reset();

/// "SIGINT", "SIGTERM", or "signal N".
const char* name_of(int sig);

/// While it exists, a first SIGINT/SIGTERM stops the run at a safe point.
class armed {
public:
  armed();
  ~armed();
  armed(const armed&) = delete;
  armed& operator=(const armed&) = delete;
};

} // namespace kb::stop_request
