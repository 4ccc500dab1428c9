#include "runtime/cli/heartbeat.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace kb {

std::chrono::milliseconds heartbeat_interval() {
  if (const char* v = std::getenv("KB_HEARTBEAT_MS"); v && *v) {
    char* end = nullptr;
    const unsigned long ms = std::strtoul(v, &end, 10);
    if (end && *end == '\0' && ms > 0)
      return std::chrono::milliseconds(ms);
  }
  return std::chrono::seconds(2);
}

std::string progress_line(const std::string& who, double wall_s, double events_per_s,
                          double tiles_per_s, const progress_counters& c,
                          const progress_totals& totals) {
  const uint64_t t = c.max_time_ps.load(std::memory_order_relaxed);
  const uint64_t tiles = c.tiles_ready.load(std::memory_order_relaxed);
  const uint64_t done = c.commands_done.load(std::memory_order_relaxed);
  std::string line = fmt::format("{}: {:.1f} s: simulated {}.{:03d} us, {:.2f} M events/s, "
                                 "{}{} commands done",
                                 who, wall_s, t / 1000000, t / 1000 % 1000,
                                 events_per_s / 1e6, done,
                                 totals.commands ? fmt::format("/{}", totals.commands) : "");
  if (totals.tiles > 0) {
    const double f = std::min(1.0, static_cast<double>(tiles) / totals.tiles);
    line += fmt::format(", {:.0f}% of tiles", 100 * f);
    if (tiles_per_s > 0)
      line += fmt::format(", about {:.0f} s left",
                          static_cast<double>(totals.tiles - std::min(tiles, totals.tiles)) /
                            tiles_per_s);
    else
      line += ", time left not known yet";
  }
  return line;
}

heartbeat::heartbeat(std::string who, std::shared_ptr<const progress_counters> counters,
                     progress_totals totals, std::chrono::milliseconds interval,
                     std::FILE* out)
  : who_(std::move(who)),
    counters_(std::move(counters)),
    totals_(totals),
    interval_(interval),
    out_(out),
    thread_([this] { loop(); }) {}

heartbeat::~heartbeat() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void heartbeat::loop() {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto last = start;
  uint64_t last_events = 0, last_tiles = 0;
  std::unique_lock lock(mutex_);
  for (auto next = start + interval_;; next += interval_) {
    if (cv_.wait_until(lock, next, [this] { return stop_; }))
      return;
    const auto now = clock::now();
    const uint64_t events = counters_->events.load(std::memory_order_relaxed);
    const uint64_t tiles = counters_->tiles_ready.load(std::memory_order_relaxed);
    const double since = std::chrono::duration<double>(now - last).count();
    const double rate = since > 0 ? (events - last_events) / since : 0.0;
    const double tile_rate = since > 0 ? (tiles - last_tiles) / since : 0.0;
    last = now;
    last_events = events;
    last_tiles = tiles;
    const double wall = std::chrono::duration<double>(now - start).count();
    const std::string line = counters_->running.load(std::memory_order_relaxed)
                               ? progress_line(who_, wall, rate, tile_rate, *counters_, totals_)
                               : fmt::format("{}: {:.1f} s: setting up the machine", who_, wall);
    std::fprintf(out_, "%s\n", line.c_str());
    std::fflush(out_);
  }
}

} // namespace kb
