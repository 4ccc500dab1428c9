#include "runtime/report/run_metrics.hpp"
#include "runtime/machine/pipeline_stats.hpp"
#include "runtime/machine/memory_stats.hpp"
#include "runtime/engine/link_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace kb {

namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

} // namespace

uint64_t end_ps(const run_result& r) {
  uint64_t e = 0;
  for (const auto& n : r.nodes)
    e = std::max(e, n.stats.last_event_ps);
  return e;
}

uint64_t kernel_latency_ps(const run_result& r) {
  uint64_t e = 0;
  for (const auto& n : r.nodes)
    if (n.name.ends_with(".m_cpu"))
      e = std::max(e, figure_or_zero(n, launch_stats::done_ps));
  return e;
}

const char* ops_unit(dtype t) {
  return t == dtype::i8 || t == dtype::i32 ? "OP/s" : "FLOP/s";
}

run_metrics compute_metrics(const report_input& in, size_t top) {
  const run_result& r = *in.result;
  run_metrics m;
  m.end_ps = end_ps(r);
  uint64_t last_return = 0;
  for (const pe_commands& p : in.commands) {
    if (const kernel_time t = kernel_time_of(p); t.ran && t.finished)
      last_return = std::max(last_return, t.end_ps);
    for (const command_stat& c : p.rows) {
      m.max_latency_ps = std::max(m.max_latency_ps, c.done_ps - std::min(c.issue_ps, c.done_ps));
      if (c.done) // a run stopped early (ADR-0030) has commands that are not
        m.flops += c.flops;
    }
  }
  for (const auto& n : r.nodes) {
    m.events += n.stats.events;
    if (!ends_with(n.name, ".hbm"))
      continue;
    m.hbm_bytes += figure_or_zero(n, memory_stats.write_bytes);
    for (const auto& f : n.figures) // read data leaving HBM
      if (f.is(link_stats::bytes))
        m.hbm_bytes += f.value;
  }
  const double secs = m.end_ps * 1e-12;
  // The rate factor last: at rate 1/1 the product is bit for bit the same.
  m.peak_flops = 2.0 * in.mac_rows * in.mac_cols * (1e12 / in.clock_period_ps) *
                 static_cast<double>(in.pes.size()) * static_cast<double>(in.mac_rate_num) /
                 static_cast<double>(in.mac_rate_den);
  m.peak_hbm_bps = in.hbm_mbps * 1e6 * in.cubes;
  m.achieved_flops = secs > 0 ? m.flops / secs : 0;
  m.achieved_hbm_bps = secs > 0 ? m.hbm_bytes / secs : 0;
  for (const auto& n : r.nodes)
    for (const auto& f : n.figures) {
      // Unit lanes, and HBM channels as lanes `ch<c>` (as in lanes_of).
      const bool unit_lane = f.is(lane_stats::busy_ps);
      if ((!unit_lane && !f.is(hbm_channel_busy_ps)) || f.value == 0)
        continue;
      const std::string lane = (unit_lane ? "" : "ch") + std::string(f.qualifier);
      m.busiest.push_back({n.name + "/" + lane, f.value,
                           m.end_ps ? static_cast<double>(f.value) / m.end_ps : 0.0});
    }
  std::stable_sort(m.busiest.begin(), m.busiest.end(),
                   [](const auto& a, const auto& b) { return a.busy_ps > b.busy_ps; });
  if (m.busiest.size() > top)
    m.busiest.resize(top);
  const uint64_t launched = kernel_latency_ps(r);
  m.kernel_latency_ps = launched ? launched : last_return;
  m.wall_s = r.hub.run_wall_ns * 1e-9;
  return m;
}

} // namespace kb
