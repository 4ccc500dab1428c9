#include "runtime/report/author_report.hpp"

#include "runtime/engine/link_stats.hpp"
#include "runtime/machine/memory_stats.hpp"
#include "runtime/machine/pipeline_stats.hpp"
#include "runtime/report/kernel_report.hpp"
#include "runtime/report/kernel_split.hpp"
#include "runtime/report/run_metrics.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>
#include <tuple>

namespace kb {

namespace {

// Caps of the sections (author_report_lines holds the sum).
constexpr std::size_t slowest_programs = 5;
constexpr std::size_t path_lines = 12; ///< runs of the critical path
constexpr std::size_t unit_lines = 8;
constexpr std::size_t link_lines = 5;
constexpr std::size_t memory_lines = 3;

double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * part / whole : 0.0; }

std::string as_ns(uint64_t ps) { return summary_ns(ps); }

bool same_step(const path_step& a, const path_step& b) {
  return a.command->what == b.command->what && a.command->unit == b.command->unit;
}

/// The program of linear id `id` as the grid numbers it.
std::string program_name(uint64_t id, const kernel_info* k) {
  if (!k || (k->grid[1] == 1 && k->grid[2] == 1))
    return fmt::format("program {}", id);
  const uint64_t g0 = k->grid[0], g1 = k->grid[1];
  return fmt::format("program ({}, {}, {})", id % g0, id / g0 % g1, id / g0 / g1);
}

void write_kernel_time(std::ostream& out, const report_input& in) {
  const auto& pes = in.commands;
  const kernel_group& g = in.groups.kernel;
  if (g.span.count == 0)
    return;
  // The PE whose kernel returned last (or, if none returned, the longest).
  const pe_commands* last = nullptr;
  kernel_time lt;
  std::vector<std::pair<uint64_t, std::string_view>> comp, load, store, transit;
  for (const auto& p : pes) {
    const kernel_time t = kernel_time_of(p);
    if (!t.ran)
      continue;
    if (!last || (t.finished && (!lt.finished || t.end_ps > lt.end_ps))) {
      last = &p;
      lt = t;
    }
    const kernel_split s = kernel_split_of(p);
    const auto share = [&](uint64_t v) {
      return s.span_ps ? v * 1000000 / s.span_ps : 0; // parts per million, for medians
    };
    comp.emplace_back(share(s.computing_ps), p.pe);
    load.emplace_back(share(s.loads_ps), p.pe);
    store.emplace_back(share(s.stores_ps), p.pe);
    transit.emplace_back(share(s.transit_ps), p.pe);
  }
  fmt::print(out, "\nkernel time (start -> return) over {} PE(s): median {} ns, max {} ns ({}){}\n",
             g.span.count, as_ns(g.span.median), as_ns(g.span.max), g.span.max_at,
             g.finished == g.span.count
               ? std::string()
               : fmt::format("; {} did not return", g.span.count - g.finished));
  const kernel_split s = kernel_split_of(*last);
  fmt::print(out, "where it went on {} ({}), by what its PE's pipeline held while it was "
                  "suspended:\n",
             last->pe, lt.finished ? "returned last" : "did not return");
  const std::pair<const char*, uint64_t> parts[] = {
    {"computing (a dot, element-wise, reduce or composite command)", s.computing_ps},
    {"waiting on loads (data in flight, nothing computing)", s.loads_ps},
    {"waiting on stores (nothing else in the pipeline)", s.stores_ps},
    {"waiting on commands and notices in transit, or TCM", s.transit_ps},
    {"not suspended (own code; a program's gaps between launches)", s.running_ps}};
  for (const auto& [what, ps] : parts)
    fmt::print(out, "  {:<62} {:>14} ns {:>6.1f}%\n", what, as_ns(ps), pct(ps, s.span_ps));
  if (pes.size() > 1)
    fmt::print(out, "  medians over the PEs: computing {:.1f}%, loads {:.1f}%, stores {:.1f}%, "
                    "in transit {:.1f}%\n",
               spread_of(comp).median / 1e4, spread_of(load).median / 1e4,
               spread_of(store).median / 1e4, spread_of(transit).median / 1e4);
  fmt::print(out, "  by the call it was suspended in (medians): blocked on loads {} ns, waiting "
                  "on handles {} ns, waiting for TCM max {} ns\n",
             as_ns(g.blocked_load.median), as_ns(g.wait.median), as_ns(g.tcm_wait.max));
}

void write_slowest_programs(std::ostream& out, const report_input& in) {
  struct program_time {
    uint64_t id = 0, start = 0, end = 0;
    std::string_view pe;
  };
  std::vector<program_time> all;
  for (const auto& p : in.commands) {
    if (!p.cpu)
      continue;
    std::map<uint64_t, program_time> mine;
    for (const auto& f : p.cpu->figures) {
      const bool start = f.is(kernel_stats::program_start_ps);
      if (!start && !f.is(kernel_stats::program_end_ps))
        continue;
      uint64_t id = 0;
      std::from_chars(f.qualifier.data(), f.qualifier.data() + f.qualifier.size(), id);
      program_time& t = mine[id];
      t.id = id;
      t.pe = p.pe;
      (start ? t.start : t.end) = f.value;
    }
    for (const auto& [id, t] : mine)
      all.push_back(t);
  }
  if (all.size() < 2)
    return; // one program: the kernel time says it all
  const std::size_t n = std::min(all.size(), slowest_programs);
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [](const program_time& a, const program_time& b) {
                      return std::tuple(b.end - b.start, a.id) < std::tuple(a.end - a.start, b.id);
                    });
  fmt::print(out, "\nslowest programs of {} (start -> its body returned; its last stores may "
                  "finish later)\n",
             all.size());
  for (std::size_t i = 0; i < n; ++i)
    fmt::print(out, "  {:<24} on {:<22} {:>14} ns  ({} -> {} ns)\n",
               program_name(all[i].id, in.kernel), all[i].pe, as_ns(all[i].end - all[i].start),
               as_ns(all[i].start), as_ns(all[i].end));
}

void write_path(std::ostream& out, const report_input& in) {
  const critical_path path = critical_path_of(in.commands);
  if (path.pe.empty())
    return;
  const std::vector<path_run> runs = collapse_path(path.steps);
  fmt::print(out, "\ncritical path: {}'s kernel returned last, at {} ns (started at {} ns): "
                  "{} commands, repeats collapsed\n",
             path.pe, as_ns(path.time.end_ps), as_ns(path.time.start_ps), path.steps.size());
  const std::size_t n = runs.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (n > path_lines && i == path_lines / 2) {
      std::size_t skipped = 0;
      for (std::size_t j = i; j < n - (path_lines - path_lines / 2 - 1); ++j)
        skipped += runs[j].period * runs[j].count;
      fmt::print(out, "  ... {} more commands ({} runs) ...\n", skipped,
                 n - path_lines + 1);
      i = n - (path_lines - path_lines / 2 - 1) - 1;
      continue;
    }
    const path_run& r = runs[i];
    const command_stat& a = *path.steps[r.first].command;
    const command_stat& z = *path.steps[r.first + r.period * r.count - 1].command;
    const uint64_t from = a.issue_ps, to = z.done_ps;
    if (r.count == 1 && r.period == 1) {
      fmt::print(out, "  cmd {:<13} {:<40} on {:<20} {:>12} -> {:>12} ns\n", a.id, a.what,
                 unit_name(a.unit), as_ns(a.issue_ps), as_ns(a.done_ps));
      continue;
    }
    std::string body;
    for (std::size_t k = 0; k < r.period; ++k) {
      const command_stat& c = *path.steps[r.first + k].command;
      body += fmt::format("{}{} ({})", k ? " -> " : "", c.what, unit_name(c.unit));
    }
    fmt::print(out, "  cmds {:<12} {} x [{}]  {} -> {} ns, {} ns each\n",
               fmt::format("{}..{}", a.id, z.id), r.count, body, as_ns(from), as_ns(to),
               as_ns((to - std::min(from, to)) / r.count));
  }
  if (!path.steps.empty())
    fmt::print(out, "  -> the kernel returned when cmd {}'s done notice resumed it\n",
               path.steps.back().command->id);
}

void write_units(std::ostream& out, const report_input& in, uint64_t end) {
  std::vector<const lane_group*> lanes;
  for (const lane_group& l : in.groups.lanes)
    if (l.busy.max > 0)
      lanes.push_back(&l);
  std::stable_sort(lanes.begin(), lanes.end(), [](const lane_group* a, const lane_group* b) {
    return a->busy.max > b->busy.max;
  });
  fmt::print(out, "\nbusiest unit lanes (busy of simulated time; over the nodes of a kind: "
                  "median, max){}\n",
             lanes.size() > unit_lines
               ? fmt::format("; {} more: --per-pe, --json", lanes.size() - unit_lines)
               : "");
  for (std::size_t i = 0; i < std::min(lanes.size(), unit_lines); ++i) {
    const lane_group& l = *lanes[i];
    fmt::print(out, "  {:<28} x{:<5} median {:>6.1f}%  max {:>6.1f}% ({})  stall max {} ns\n",
               l.lane, l.busy.count, pct(l.busy.median, end), pct(l.busy.max, end),
               l.busy.max_at, as_ns(l.stall.max));
  }
}

void write_links_and_memories(std::ostream& out, const report_input& in, uint64_t end) {
  struct busy_thing {
    std::string name;
    uint64_t busy = 0, bytes = 0, written = 0;
  };
  std::vector<busy_thing> links, memories;
  for (const auto& n : in.result->nodes) {
    for (const auto& f : n.figures)
      if (f.is(link_stats::bytes) && f.value > 0)
        links.push_back({fmt::format("{} -> {}", n.name, f.qualifier),
                         figure_or_zero(n, link_stats::busy_ps, f.qualifier), f.value, 0});
    for (const memory_stat_set* m : {&memory_stats, &tcm_dma_stats})
      if (const uint64_t busy = figure_or_zero(n, m->busy_ps))
        memories.push_back({n.name, busy, figure_or_zero(n, m->read_bytes),
                            figure_or_zero(n, m->write_bytes)});
  }
  const auto busiest = [](std::vector<busy_thing>& v, std::size_t n) {
    n = std::min(n, v.size());
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), v.end(),
                      [](const busy_thing& a, const busy_thing& b) {
                        return std::tie(b.busy, a.name) < std::tie(a.busy, b.name);
                      });
    return n;
  };
  const std::size_t nl = busiest(links, link_lines);
  fmt::print(out, "\nbusiest links (of {} that carried bytes)\n", links.size());
  for (std::size_t i = 0; i < nl; ++i)
    fmt::print(out, "  {:<60} {:>14} B  busy {:>5.1f}%\n", links[i].name, links[i].bytes,
               pct(links[i].busy, end));
  const std::size_t nm = busiest(memories, memory_lines);
  fmt::print(out, "busiest memories (of {} that served requests)\n", memories.size());
  for (std::size_t i = 0; i < nm; ++i)
    fmt::print(out, "  {:<40} busy {:>5.1f}%  read {:>14} B  written {:>14} B\n",
               memories[i].name, pct(memories[i].busy, end), memories[i].bytes,
               memories[i].written);
}

} // namespace

std::vector<path_run> collapse_path(const std::vector<path_step>& steps) {
  std::vector<path_run> runs;
  std::size_t i = 0;
  while (i < steps.size()) {
    path_run best{i, 1, 1};
    for (std::size_t p = 1; p <= 8 && i + 2 * p <= steps.size(); ++p) {
      std::size_t count = 1;
      while (i + (count + 1) * p <= steps.size()) {
        bool same = true;
        for (std::size_t k = 0; k < p && same; ++k)
          same = same_step(steps[i + k], steps[i + count * p + k]);
        if (!same)
          break;
        ++count;
      }
      if (count >= 2 && p * count > best.period * best.count)
        best = {i, p, count};
    }
    runs.push_back(best);
    i += best.period * best.count;
  }
  return runs;
}

void write_author_summary(std::ostream& out, const report_input& in) {
  const run_result& r = *in.result;
  const uint64_t end = end_ps(r);
  size_t all = 0;
  for (const auto& p : in.commands)
    all += p.rows.size();
  write_run_header(out, in);
  fmt::print(out, "simulated time: {} ns\n", as_ns(end));
  if (const uint64_t k = kernel_latency_ps(r))
    fmt::print(out, "kernel latency: {} ns (host launch -> host receipt of the last completion, "
                    "through M_CPU and NOC)\n",
               as_ns(k));
  fmt::print(out, "commands: {} in all; every command's line: --per-command, every PE's: "
                  "--per-pe, all of it: --json\n",
             all);
  write_kernel_time(out, in);
  write_slowest_programs(out, in);
  write_path(out, in);
  write_units(out, in, end);
  write_links_and_memories(out, in, end);
  write_run_tail(out, in);
}

} // namespace kb
