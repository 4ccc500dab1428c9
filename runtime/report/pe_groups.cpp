#include "runtime/report/pe_groups.hpp"
#include "runtime/parallel_indices.hpp"
#include "runtime/machine/pipeline_stats.hpp"
#include "runtime/machine/memory_stats.hpp"
#include "runtime/engine/link_stats.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <map>

namespace kb {

std::string summary_ns(uint64_t ps) {
  return ps % 1000 == 0 ? fmt::format("{}", ps / 1000)
                        : fmt::format("{}.{:03d}", ps / 1000, ps % 1000);
}

namespace {

bool numbered(std::string_view part, std::string_view word) {
  if (part.size() <= word.size() || part.substr(0, word.size()) != word)
    return false;
  return std::all_of(part.begin() + static_cast<std::ptrdiff_t>(word.size()), part.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

std::string where(const spread& s, const std::string& at) {
  return s.min == s.max ? std::string() : fmt::format(" ({})", at);
}

/// "min X (pe)  median Y  max Z (pe)", or "all X" when they agree.
std::string range_ns(const spread& s) {
  if (s.min == s.max)
    return fmt::format("all {} ns", summary_ns(s.min));
  return fmt::format("min {} ns{}  median {} ns  max {} ns{}", summary_ns(s.min),
                     where(s, s.min_at), summary_ns(s.median), summary_ns(s.max),
                     where(s, s.max_at));
}

double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * part / whole : 0.0; }

} // namespace

std::map<std::string, lane_figures> lanes_of(const node_summary& n) {
  std::map<std::string, lane_figures> out;
  for (const auto& f : n.figures) {
    const std::string q(f.qualifier);
    if (f.is(lane_stats::busy_ps)) {
      out[q].busy = f.value;
      out[q].has_busy = true;
    } else if (f.is(lane_stats::stall_ps)) {
      out[q].stall = f.value;
    } else if (f.is(lane_stats::wait_ps)) {
      out[q].wait = f.value;
    } else if (f.is(lane_stats::stages)) {
      out[q].stages = f.value;
    } else if (f.is(lane_stats::bytes)) {
      out[q].bytes = f.value;
    } else if (f.is(hbm_channel_busy_ps)) {
      lane_figures& l = out["ch" + q];
      l.busy = f.value;
      l.has_busy = true;
    }
  }
  return out;
}

std::optional<std::pair<std::string_view, std::string_view>> split_pe_node(std::string_view name) {
  // sip<a>.cube<b>.pe<c>.<unit...>
  std::size_t at = 0;
  for (const std::string_view word : {"sip", "cube", "pe"}) {
    const auto dot = name.find('.', at);
    if (dot == std::string_view::npos || !numbered(name.substr(at, dot - at), word))
      return std::nullopt;
    at = dot + 1;
  }
  return std::pair{name.substr(0, at - 1), name.substr(at)};
}

std::pair<std::string, std::string_view> group_of(std::string_view name) {
  if (const auto pe = split_pe_node(name))
    return {fmt::format("pe.{}", pe->second), pe->first};
  std::size_t at = 0;
  for (const std::string_view word : {"sip", "cube"}) {
    const auto dot = name.find('.', at);
    if (dot == std::string_view::npos || !numbered(name.substr(at, dot - at), word))
      return {std::string(name), name};
    at = dot + 1;
  }
  return {fmt::format("cube.{}", name.substr(at)), name.substr(0, at - 1)};
}

spread spread_of(const std::vector<std::pair<uint64_t, std::string_view>>& values) {
  spread s;
  s.count = values.size();
  if (values.empty())
    return s;
  std::vector<uint64_t> sorted;
  sorted.reserve(values.size());
  auto lo = values.begin(), hi = values.begin();
  for (auto it = values.begin(); it != values.end(); ++it) {
    sorted.push_back(it->first);
    s.total += it->first;
    if (it->first < lo->first)
      lo = it;
    if (it->first > hi->first)
      hi = it;
  }
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2),
                   sorted.end());
  s.median = sorted[sorted.size() / 2];
  s.min = lo->first;
  s.max = hi->first;
  s.min_at = lo->second;
  s.max_at = hi->second;
  return s;
}

namespace {

using values = std::vector<std::pair<uint64_t, std::string_view>>;

/// The most commands any PE issued; command i of every PE is one group.
std::size_t most_commands(const pe_group_input& in) {
  std::size_t most = 0;
  for (const auto& p : *in.commands)
    most = std::max(most, p.rows.size());
  return most;
}

std::vector<command_group> group_commands(const pe_group_input& in) {
  std::vector<command_group> out;
  for (std::size_t i = 0; i < most_commands(in); ++i) {
    values latency, done, tiles;
    command_group g;
    g.id = i + 1;
    for (const auto& p : *in.commands)
      if (i < p.rows.size()) {
        const command_stat& c = p.rows[i];
        latency.emplace_back(c.done_ps - std::min(c.issue_ps, c.done_ps), p.pe);
        done.emplace_back(c.done_ps, p.pe);
        tiles.emplace_back(c.tiles, p.pe);
        g.flops += c.flops;
        g.bytes += c.bytes;
        if (g.what.empty()) {
          g.what = c.what;
          g.call = c.call;
        }
      }
    g.latency = spread_of(latency);
    g.done = spread_of(done);
    g.tiles = spread_of(tiles);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<lane_group> group_lanes(const pe_group_input& in) {
  // (group/lane) -> per node: busy, stall, wait; in first-seen order.
  struct lane_values {
    values busy, stall, wait;
    uint64_t stages = 0, bytes = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, lane_values> by_lane;
  for (const auto& n : in.result->nodes) {
    const auto [group, at] = group_of(n.name);
    for (const auto& [lane, l] : lanes_of(n)) {
      if (!l.has_busy || (l.busy == 0 && l.stages == 0 && l.stall == 0))
        continue;
      const std::string key = fmt::format("{}/{}", group, lane);
      auto [it, fresh] = by_lane.try_emplace(key);
      if (fresh)
        order.push_back(key);
      it->second.busy.emplace_back(l.busy, at);
      it->second.stall.emplace_back(l.stall, at);
      it->second.wait.emplace_back(l.wait, at);
      it->second.stages += l.stages;
      it->second.bytes += l.bytes;
    }
  }
  std::vector<lane_group> out;
  for (const auto& key : order) {
    const auto& v = by_lane.at(key);
    out.push_back({key, spread_of(v.busy), spread_of(v.stall), spread_of(v.wait), v.stages,
                   v.bytes});
  }
  return out;
}

std::vector<interval_group> group_intervals(const pe_group_input& in) {
  std::vector<interval_group> out;
  for (std::size_t i = 0; i < most_commands(in); ++i) {
    // (body tiles, II) -> the simulated interval per PE, in first-seen order.
    std::vector<std::pair<uint64_t, uint64_t>> order;
    std::map<std::pair<uint64_t, uint64_t>, values> seen;
    for (const auto& p : *in.commands) {
      if (!p.scheduler || i >= p.rows.size() || p.rows[i].unit != 0xff)
        continue; // one tile on one unit: no steady state
      const command_stat& c = p.rows[i];
      const auto key = std::make_pair(c.body_tiles, c.predicted_ii_ps);
      auto [it, fresh] = seen.try_emplace(key);
      if (fresh)
        order.push_back(key);
      it->second.emplace_back(c.has_steady ? c.steady_interval_ps : 0, p.pe); // 0: < 3 bodies
    }
    for (const auto& key : order)
      out.push_back({i + 1, key.first, key.second, spread_of(seen.at(key))});
  }
  return out;
}

std::vector<link_group> group_links(const pe_group_input& in) {
  struct link_values {
    values bytes, busy;
  };
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, link_values> by_link;
  for (const auto& n : in.result->nodes) {
    const auto [group, at] = group_of(n.name);
    for (const auto& f : n.figures) {
      if (!f.is(link_stats::bytes))
        continue;
      const std::string_view dst = f.qualifier;
      const uint64_t busy = figure_or_zero(n, link_stats::busy_ps, dst);
      auto key = std::make_pair(group, group_of(dst).first);
      auto [it, fresh] = by_link.try_emplace(key);
      if (fresh)
        order.push_back(std::move(key));
      it->second.bytes.emplace_back(f.value, at);
      it->second.busy.emplace_back(busy, at);
    }
  }
  std::vector<link_group> out;
  for (const auto& key : order) {
    const auto& v = by_link.at(key);
    out.push_back({key.first, key.second, spread_of(v.bytes), spread_of(v.busy)});
  }
  return out;
}

} // namespace

kernel_group group_kernel_time(const std::vector<pe_commands>& pes) {
  values span, load, wait, tcm, computing;
  kernel_group g;
  for (const auto& p : pes)
    if (const kernel_time t = kernel_time_of(p); t.ran) {
      span.emplace_back(t.end_ps - std::min(t.start_ps, t.end_ps), p.pe);
      load.emplace_back(t.blocked_load_ps, p.pe);
      wait.emplace_back(t.wait_ps, p.pe);
      tcm.emplace_back(t.tcm_wait_ps, p.pe);
      computing.emplace_back(t.running_ps(), p.pe);
      g.finished += t.finished ? 1 : 0;
    }
  g.span = spread_of(span);
  g.blocked_load = spread_of(load);
  g.wait = spread_of(wait);
  g.tcm_wait = spread_of(tcm);
  g.computing = spread_of(computing);
  return g;
}

pe_group_summary group_pes(const pe_group_input& in, size_t threads) {
  pe_group_summary g;
  g.pes = in.commands->size();
  // Three scans of their own, at once on several threads: the units' lanes
  // and the links read every node; the rest, every PE.
  for_each_index(3, threads, [&](size_t part) {
    if (part == 0) {
      g.lanes = group_lanes(in);
    } else if (part == 1) {
      g.links = group_links(in);
    } else {
      g.commands = group_commands(in);
      g.intervals = group_intervals(in);
      values stall;
      for (const auto& p : *in.commands)
        if (const node_summary* s = p.scheduler) {
          stall.emplace_back(figure_or_zero(*s, scheduler_stats::feeder_stall_ps), p.pe);
          g.tiles_fed += figure_or_zero(*s, scheduler_stats::tiles_fed);
        }
      g.feeder_stall = spread_of(stall);
      g.kernel = group_kernel_time(*in.commands);
    }
  }, 1);
  return g;
}

void write_grouped_latency(std::ostream& out, const pe_group_summary& g) {
  for (const command_group& c : g.commands) {
    const spread &l = c.latency, &d = c.done, &t = c.tiles;
    fmt::print(out, "  cmd {:<3} {} PEs  {} tiles  latency {}  last done {} ns{}  {}\n", c.id,
               l.count,
               t.min == t.max ? fmt::format("{}", t.min) : fmt::format("{}..{}", t.min, t.max),
               range_ns(l), summary_ns(d.max), l.count > 1 ? fmt::format(" ({})", d.max_at) : "",
               c.what);
  }
}

void write_grouped_units(std::ostream& out, const pe_group_summary& g, uint64_t end_ps) {
  for (const lane_group& l : g.lanes) {
    const spread &b = l.busy, &s = l.stall, &w = l.wait;
    fmt::print(out, "  {:<28} x{:<5} busy {:>14} ns median {:>6.1f}%  stall max {:>12} ns  "
                    "queue wait max {:>12} ns  stages {}\n",
               l.lane, b.count, summary_ns(b.median), pct(b.median, end_ps), summary_ns(s.max),
               summary_ns(w.max), l.stages);
    if (b.min != b.max)
      fmt::print(out, "  {:<28}        busy {}\n", "", range_ns(b));
  }
}

void write_grouped_intervals(std::ostream& out, const pe_group_summary& g) {
  for (const interval_group& i : g.intervals) {
    const spread& sim = i.simulated;
    const uint64_t ii = i.predicted_ii_ps;
    fmt::print(out, "  cmd {:<3} {} PEs  body {:>3} tiles  II {:>14}  simulated {}{}\n", i.id,
               sim.count, i.body_tiles, ii ? summary_ns(ii) + " ns" : "not modelled",
               sim.max ? range_ns(sim) : "n/a (< 3 bodies)",
               ii && sim.max
                 ? fmt::format("  ratio median {:.3f}", double(sim.median) / double(ii))
                 : "");
  }
}

void write_grouped_stalls(std::ostream& out, const pe_group_summary& g) {
  fmt::print(out, "  pe_scheduler x{:<5} stall {}  over {} tiles in all\n", g.feeder_stall.count,
             range_ns(g.feeder_stall), g.tiles_fed);
}

void write_grouped_links(std::ostream& out, const pe_group_summary& g, uint64_t end_ps) {
  for (const link_group& l : g.links) {
    const spread &b = l.bytes, &u = l.busy;
    fmt::print(out, "  {:<56} x{:<5} {:>14} B in all  busy median {:>5.1f}% max {:>5.1f}%\n",
               fmt::format("{:<24} -> {}", l.src, l.dst), b.count, b.total,
               pct(u.median, end_ps), pct(u.max, end_ps));
  }
}

} // namespace kb
