#include "runtime/run/run_limits.hpp"

#include "runtime/io/signal_cleanup.hpp"
#include "runtime/kernel/kernel_watch.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace kb {

namespace {
/// Lines of a report beyond which the rest is counted, not listed.
constexpr size_t report_lines = 32;
} // namespace

std::string passed_end_report(const run_result& r, SimTime end) {
  std::string lines;
  size_t held = 0;
  for (const auto& s : r.nodes) {
    if (s.pending.empty())
      continue;
    if (++held <= report_lines)
      lines += fmt::format("\n  {}: {}", s.name, s.pending);
  }
  if (held == 0)
    return {};
  if (held > report_lines)
    lines += fmt::format("\n  ... and {} more node(s) holding work", held - report_lines);
  return fmt::format("the run reached --max-sim-time {} ps with work pending "
                     "(a kernel that polls or loops in simulated time?):{}",
                     end.ps(), lines);
}

bool end_stalled_run(const std::string& who, std::chrono::milliseconds stalled,
                     std::chrono::milliseconds limit, uint32_t ranks) {
  if (ranks > 1 && !kernel_watch::any_running() && stalled < limit + split_grace)
    return false;
  const std::vector<std::string> kernels = kernel_watch::report();
  std::string text = fmt::format(
    "{}: no simulated progress for {:.1f} s of wall-clock time (--stall-timeout {:.1f} s); ",
    who, stalled.count() * 1e-3, limit.count() * 1e-3);
  if (kernels.empty())
    text += "no kernel is running (the engine itself stalled)\n";
  else
    text += "kernels still running:\n";
  for (size_t i = 0; i < kernels.size() && i < report_lines; ++i)
    text += "  " + kernels[i] + "\n";
  if (kernels.size() > report_lines)
    text += fmt::format("  ... and {} more\n", kernels.size() - report_lines);
  // One write, so that the lines of two processes' reports do not mix.
  std::fflush(stdout);
  [[maybe_unused]] const ssize_t w = ::write(STDERR_FILENO, text.data(), text.size());
  // A thread is inside the kernel's code: nothing can unwind it. The
  // outputs' temporaries go (issue 67 item 8): each is complete or absent.
  signal_cleanup::remove_now();
  std::_Exit(1);
}

} // namespace kb
