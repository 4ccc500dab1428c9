#include "runtime/report/run_timings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace kb {

namespace {

std::string mib(uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

/// The most the process held: its kernel's peak, or more if /proc/self/statm
/// counted more at a phase's end (it counts shared pages the peak may not).
uint64_t peak_of(const phase_clock& clock) {
  uint64_t peak = peak_resident_bytes();
  for (const auto& p : clock.phases())
    peak = std::max(peak, p.rss_bytes);
  return peak;
}

} // namespace

void write_timings_json(json_writer& j, const phase_clock* clock) {
  if (!clock) {
    j.null_value();
    return;
  }
  j.begin_object().key("phases").begin_array();
  for (const auto& p : clock->phases())
    j.begin_object()
      .field("phase", p.name)
      .field("wall_s", p.wall_s)
      .field("rss_bytes", p.rss_bytes)
      .end_object();
  const double total = clock->total_s(), outside = clock->outside_s();
  j.end_array()
    .field("wall_s", total)
    .field("event_loop_s", total - outside)
    .field("peak_rss_bytes", peak_of(*clock))
    .end_object();
}

void print_timings(std::ostream& out, const phase_clock& clock) {
  const double total = clock.total_s(), outside = clock.outside_s();
  auto share = [&](double s) { return total > 0 ? 100.0 * s / total : 0.0; };
  out << "\ntimings (wall clock; resident memory when the phase ended)\n";
  for (const auto& p : clock.phases())
    out << fmt::format("  {:<26} {:>9.3f} s {:>6.1f}% {:>12}\n", p.name, p.wall_s,
                       share(p.wall_s), mib(p.rss_bytes));
  out << fmt::format("  {:<26} {:>9.3f} s {:>6.1f}% {:>12} peak\n", "total", total, 100.0,
                     mib(peak_of(clock)));
  out << fmt::format("  {:<26} {:>9.3f} s {:>6.1f}%\n", "outside the event loop", outside,
                     share(outside));
}

} // namespace kb
