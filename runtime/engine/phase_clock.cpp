#include "runtime/engine/phase_clock.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace kb {

uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  unsigned long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  const long page = sysconf(_SC_PAGESIZE);
  return got == 2 && page > 0 ? resident * static_cast<uint64_t>(page) : 0;
}

uint64_t peak_resident_bytes() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0)
    return 0;
  return static_cast<uint64_t>(u.ru_maxrss) * 1024; // KiB on Linux
}

phase_clock::phase_clock() : start_(std::chrono::steady_clock::now()), last_(start_) {}

void phase_clock::mark(std::string name) {
  const auto now = std::chrono::steady_clock::now();
  phases_.push_back({std::move(name), std::chrono::duration<double>(now - last_).count(),
                     resident_bytes(), false});
  last_ = now;
}

void phase_clock::mark_event_loop(double loop_s, std::string rest, double wait_s) {
  const auto now = std::chrono::steady_clock::now();
  const double whole = std::chrono::duration<double>(now - last_).count();
  const double loop = std::clamp(loop_s, 0.0, whole);
  const double wait = std::clamp(wait_s, 0.0, whole - loop);
  const uint64_t rss = resident_bytes();
  if (wait_s > 0)
    phases_.push_back({"wait for other processes", wait, rss, false});
  phases_.push_back({"event loop", loop, rss, true});
  phases_.push_back({std::move(rest), whole - loop - wait, rss, false});
  last_ = now;
}

double phase_clock::total_s() const {
  return std::chrono::duration<double>(last_ - start_).count();
}

double phase_clock::outside_s() const {
  double s = 0;
  for (const auto& p : phases_)
    s += p.event_loop ? 0 : p.wall_s;
  return s;
}

} // namespace kb
