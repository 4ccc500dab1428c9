#include "runtime/report/run_report.hpp"
#include "runtime/report/author_report.hpp"
#include "runtime/report/run_timings.hpp"

#include "runtime/report/fabric_report.hpp"
#include "runtime/report/pe_groups.hpp"
#include "runtime/report/pe_groups_json.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "runtime/io/json_writer.hpp"
#include "runtime/report/run_metrics.hpp"
#include "runtime/io/stop_request.hpp"
#include "runtime/machine/pipeline_stats.hpp"
#include "runtime/trace/stage_table.hpp"
#include "runtime/engine/link_stats.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace kb {

namespace {

std::string ns_str(uint64_t ps) { return summary_ns(ps); }

/// A figure of one out link (the engine's link statistics).
bool per_link(const figure& f) {
  return f.is(link_stats::bytes) || f.is(link_stats::messages) || f.is(link_stats::busy_ps);
}


} // namespace

std::vector<stage_record> stage_records(const std::vector<trace_record>& records) {
  stage_pairer pairs;
  std::vector<stage_record> out;
  for (const auto& r : records) {
    if (auto s = pairs.add(r))
      out.push_back(*s);
    if (pairs.unmatched() != 0)
      throw std::logic_error("engine_complete without engine_start");
  }
  return out;
}

namespace {

/// The first and the last commands of a PE the text report lists.
constexpr size_t pe_command_lines = 512;

std::string ns_or(const std::optional<uint64_t>& ps, const char* missing) {
  return ps && *ps ? fmt::format("{} ns", ns_str(*ps)) : std::string(missing);
}

} // namespace

void index_commands(report_input& in) {
  in.commands = commands_of(*in.result, in.pes, in.threads);
  in.groups = group_pes({in.result, &in.commands}, in.threads);
}

void write_run_header(std::ostream& out, const report_input& in) {
  size_t fewest = in.commands.empty() ? 0 : SIZE_MAX, most = 0;
  for (const auto& p : in.commands) {
    fewest = std::min(fewest, p.rows.size());
    most = std::max(most, p.rows.size());
  }
  fmt::print(out, "kernbench run: {} on {} PE(s), {} command(s) each, {} thread(s)\n",
             in.label.empty() ? "idle" : in.label, in.pes.size(),
             fewest == most ? fmt::format("{}", most) : fmt::format("{}..{}", fewest, most),
             in.threads);
  fmt::print(out, "topology: {}\n\n", in.topology_file);
  if (in.stopped_by != 0)
    fmt::print(out, "STOPPED by {} at simulated time {} ns, before the machine went quiet: "
                    "every figure below is of the run so far (incomplete)\n\n",
               stop_request::name_of(in.stopped_by), ns_str(end_ps(*in.result)));
}

void write_summary(std::ostream& out, const report_input& in) {
  // A kernel's or a host program's run: the author's report unless every
  // command or every PE was asked for (author_report.hpp).
  if (in.kernel && !in.per_command && !in.per_pe)
    return write_author_summary(out, in);
  const run_result& r = *in.result;
  const uint64_t end = end_ps(r);
  write_run_header(out, in);
  const bool grouped = !in.per_pe && in.pes.size() > summary_pe_lines;
  const pe_group_summary& groups = in.groups;
  const std::vector<pe_commands> no_pes;     // grouped: the per-PE loops skip
  const std::vector<node_summary> no_nodes;
  fmt::print(out, "command latency (PE_CPU issue -> command-done notice; start: PE_SCHEDULER "
                  "released its first tile){}\n",
             grouped ? fmt::format(", over {} PEs (--per-pe: each)", in.pes.size()) : "");
  // A kernel's commands only with --per-command (--per-pe alone: its PEs'
  // figures). A stopped run's PEs, their first and last commands only: a
  // kernel that polled a flag a million times made this hundreds of MB,
  // and a stopped run took ~100 s to write it (issue 61 item 5). The
  // JSON's pes[].commands has them all.
  const bool list_commands = !in.kernel || in.per_command;
  if (grouped && list_commands)
    write_grouped_latency(out, groups);
  if (!list_commands)
    fmt::print(out, "  (every command's line: --per-command)\n");
  const size_t cap = in.stopped_by != 0 ? pe_command_lines : SIZE_MAX / 4;
  for (const auto& p : grouped || !list_commands ? no_pes : in.commands)
    for (size_t i = 0; i < p.rows.size(); ++i) {
      if (p.rows.size() > 2 * cap && i == cap) {
        fmt::print(out, "  {:<18} ... {} more commands (the JSON's pes[].commands has them)\n",
                   p.pe, p.rows.size() - 2 * cap);
        i = p.rows.size() - cap - 1;
        continue;
      }
      const command_stat& c = p.rows[i];
      fmt::print(out, "  {:<18} cmd {:<3} {:>6} tiles  issue {:>12} ns  start {:>12} ns  done {:>12} ns  "
                      "latency {:>12} ns  {}\n",
                 p.pe, c.id, c.tiles, ns_str(c.issue_ps), ns_str(c.start_ps), ns_str(c.done_ps),
                 ns_str(c.done_ps - std::min(c.issue_ps, c.done_ps)), c.what);
    }
  fmt::print(out, "\nsimulated time: {} ns\n", ns_str(end));
  if (const uint64_t k = kernel_latency_ps(r))
    fmt::print(out, "kernel latency: {} ns (host launch -> host receipt of the last completion, "
                    "through M_CPU and NOC)\n",
               ns_str(k));
  write_kernel_summary(out, in.commands, grouped, in.per_command && in.stopped_by == 0);
  fmt::print(out, "\n");
  fmt::print(out, "per-unit busy time and utilisation (of simulated time)\n");
  if (grouped)
    write_grouped_units(out, groups, end);
  else
    fmt::print(out, "  {:<36} {:>14} {:>7} {:>14} {:>14} {:>8}\n", "unit/lane",
               "busy ns", "util", "stall ns", "queue wait ns", "stages");
  for (const auto& n : grouped ? no_nodes : r.nodes) {
    for (const auto& [lane, f] : lanes_of(n)) {
      if (!f.has_busy)
        continue;
      const uint64_t busy = f.busy, stall = f.stall, wait = f.wait, stages = f.stages;
      if (busy == 0 && stages == 0 && stall == 0)
        continue;
      fmt::print(out, "  {:<36} {:>14} {:>6.1f}% {:>14} {:>14} {:>8}\n",
                 n.name + "/" + lane, ns_str(busy), end ? 100.0 * busy / end : 0.0,
                 ns_str(stall), ns_str(wait), stages);
    }
  }
  fmt::print(out, "\nsteady-state interval per body (the K tiles of one output tile) of each "
                  "composite command: modulo schedule of the units vs simulation\n");
  if (grouped && list_commands)
    write_grouped_intervals(out, groups);
  for (const auto& p : grouped || !list_commands ? no_pes : in.commands)
    for (const command_stat& c : p.rows) {
      if (c.unit != 0xff)
        continue; // one tile on one unit: no steady state
      const std::optional<uint64_t> ii = c.predicted_ii_ps ? std::optional(c.predicted_ii_ps) : std::nullopt;
      const std::optional<uint64_t> sim = c.has_steady ? std::optional(c.steady_interval_ps) : std::nullopt;
      fmt::print(out, "  {:<18} cmd {:<3} body {:>3} tiles  II {:>14}  simulated {:>14}{}\n", p.pe,
                 c.id, c.body_tiles, ns_or(ii, "not modelled"), ns_or(sim, "n/a (< 3 bodies)"),
                 ii && sim ? fmt::format("  ratio {:.3f}", double(*sim) / double(*ii))
                           : std::string());
    }
  fmt::print(out, "\nbackpressure stall of the feeders (first-stage queue full)\n");
  if (grouped)
    write_grouped_stalls(out, groups);
  for (const auto& p : grouped ? no_pes : in.commands)
    if (const node_summary* s = p.scheduler)
      fmt::print(out, "  {:<36} {:>14} ns over {} tiles\n", s->name,
                 ns_str(figure_or_zero(*s, scheduler_stats::feeder_stall_ps)),
                 figure_or_zero(*s, scheduler_stats::tiles_fed));
  fmt::print(out, "\nbytes over each link\n");
  if (grouped)
    write_grouped_links(out, groups, end);
  for (const auto& n : grouped ? no_nodes : r.nodes) {
    for (const auto& f : n.figures) {
      if (!f.is(link_stats::bytes))
        continue;
      const std::string_view dst = f.qualifier;
      const uint64_t busy = figure_or_zero(n, link_stats::busy_ps, dst);
      fmt::print(out, "  {:<28} -> {:<28} {:>14} B  busy {:>5.1f}%\n", n.name, dst,
                 f.value, end ? 100.0 * busy / end : 0.0);
    }
  }
  write_fabric_summary(out, fabric_use_of(r), end);
  write_run_tail(out, in);
}

void write_run_tail(std::ostream& out, const report_input& in) {
  const run_result& r = *in.result;
  const uint64_t end = end_ps(r);
  const run_metrics m = compute_metrics(in);
  const double secs = end * 1e-12;
  const uint64_t events = m.events, flops = m.flops, hbm_bytes = m.hbm_bytes;
  const double peak_flops = m.peak_flops, peak_bw = m.peak_hbm_bps, wall = m.wall_s;
  // One line (tests and bench scripts read it as one).
  fmt::print(out, "\nengine: {} events in {:.3f} s wall ({:.0f} events/s), {} windows, "
                  "{:.2f} sync messages per event ({}: peer null {}, lbts {}, yield {}, "
                  "advance {}, report {}), {} shard(s)\n",
             events, wall, wall > 0 ? events / wall : 0.0, r.hub.windows,
             events ? static_cast<double>(r.hub.sync_msgs()) / events : 0.0, r.hub.sync_msgs(),
             r.hub.peer_null_msgs, r.hub.lbts_msgs, r.hub.yield_msgs, r.hub.advance_msgs,
             r.hub.report_msgs, r.hub.shards);
  fmt::print(out, "\nthroughput\n");
  if (secs > 0 && flops > 0)
    fmt::print(out, "  compute   {:.3f} T{} achieved of {:.3f} T{} peak ({:.1f}%) over {} PE(s)\n",
               flops / secs / 1e12, ops_unit(in.compute_dtype), peak_flops / 1e12,
               ops_unit(in.compute_dtype), 100.0 * flops / secs / peak_flops, in.pes.size());
  if (secs > 0)
    fmt::print(out, "  HBM       {:.1f} GB/s achieved of {:.1f} GB/s peak ({:.1f}%)\n",
               hbm_bytes / secs / 1e9, peak_bw / 1e9, 100.0 * hbm_bytes / secs / peak_bw);
}

std::string report_json(const report_input& in) {
  const run_result& r = *in.result;
  // A run of many PEs has its groups, not every PE's figures (--per-pe: both).
  const bool per_pe = in.per_pe || in.pes.size() <= summary_pe_lines;
  // Each PE unit's tallies by (PE, command, stage type): one pass over the
  // nodes instead of a scan per PE (quadratic on 1,024 PEs).
  std::map<std::string_view, size_t> pe_of_prefix;
  for (size_t p = 0; p < in.pes.size(); ++p)
    pe_of_prefix.emplace(in.pes[p], p);
  std::map<std::tuple<size_t, uint64_t, int>, std::pair<uint64_t, uint64_t>> by_key;
  for (const node_summary& n : r.nodes) {
    if (!per_pe || n.tables.empty())
      continue;
    const auto dot = n.name.rfind('.');
    if (dot == std::string::npos)
      continue;
    const auto pe = pe_of_prefix.find(std::string_view(n.name).substr(0, dot));
    if (pe == pe_of_prefix.end())
      continue;
    for (const stage_tally& t : stage_table::rows_of(n.tables)) {
      auto& [count, busy] = by_key[{pe->second, t.command, t.type}];
      count += t.count;
      busy += t.busy_ps;
    }
  }
  json_writer j;
  j.begin_object();
  j.field("schema_version", std::string(report_schema_version));
  j.field("topology", in.topology_file);
  j.key("set").begin_array();
  for (const auto& o : in.overrides)
    j.value(o);
  j.end_array();
  j.field("end_ps", end_ps(r));
  j.key("program").begin_array();
  for (const auto& c : in.program)
    j.value(c);
  j.end_array();
  j.field("per_pe", per_pe);
  j.key("pes").begin_array();
  for (size_t pe_no = 0; per_pe && pe_no < in.commands.size(); ++pe_no) {
    const pe_commands& p = in.commands[pe_no];
    j.begin_object().field("pe", p.pe).key("commands").begin_array();
    for (const command_stat& c : p.rows) {
      const uint64_t i = c.id;
      j.begin_object()
        .field("id", c.id)
        .field("what", c.what)
        .field("call", to_string(static_cast<command_call>(c.call)))
        .field("issue_ps", c.issue_ps)
        .field("arrive_ps", c.arrive_ps)
        .field("start_ps", c.start_ps)
        .field("done_ps", c.done_ps)
        .field("latency_ps", c.done_ps - std::min(c.issue_ps, c.done_ps))
        .field("tiles", c.tiles)
        .field("flops", c.flops)
        .field("bytes", c.bytes)
        .field("after", c.after)
        .field("held", to_string(static_cast<held_why>(c.held)))
        .field("held_by", c.held_by);
      j.key("body_tiles").value(p.scheduler ? std::optional(c.body_tiles) : std::nullopt);
      j.key("predicted_ii_ps").value(c.predicted_ii_ps ? std::optional(c.predicted_ii_ps) : std::nullopt);
      j.key("predicted_mii_ps").value(c.has_mii ? std::optional(c.predicted_mii_ps) : std::nullopt);
      j.key("steady_interval_ps").value(c.has_steady ? std::optional(c.steady_interval_ps) : std::nullopt);
      j.key("stages").begin_object();
      for (int t = 0; t <= static_cast<int>(stage_type::dma_write); ++t) {
        const auto it = by_key.find({pe_no, i, t});
        if (it == by_key.end() || it->second.first == 0)
          continue; // only the stage types the command used
        j.key(to_string(static_cast<stage_type>(t)))
          .begin_object()
          .field("count", it->second.first)
          .field("busy_ps", it->second.second)
          .end_object();
      }
      j.end_object().end_object();
    }
    j.end_array().end_object();
  }
  j.end_array();
  j.key("fabric");
  write_fabric_json(j, fabric_use_of(r));
  j.key("units").begin_array();
  for (const auto& n : r.nodes) {
    if (!per_pe && split_pe_node(n.name))
      continue; // in groups.lanes and groups.links
    j.begin_object().field("node", n.name).field("events", n.stats.events);
    j.key("figures").begin_object();
    for (const auto& f : n.figures) {
      // Grouped: a link to a PE's node is in groups.links.
      if (!per_pe && per_link(f) && split_pe_node(f.qualifier))
        continue;
      j.field(f.name(), f.value);
    }
    j.end_object().end_object();
  }
  j.end_array();
  const run_metrics m = compute_metrics(in);
  j.key("summary").begin_object()
    .field("max_latency_ps", m.max_latency_ps)
    .field("flops", m.flops)
    .field("achieved_flop_per_s", m.achieved_flops)
    .field("peak_flop_per_s", m.peak_flops)
    .field("hbm_bytes", m.hbm_bytes)
    .field("achieved_hbm_bytes_per_s", m.achieved_hbm_bps)
    .field("peak_hbm_bytes_per_s", m.peak_hbm_bps)
    .field("events", m.events);
  j.key("busiest_units").begin_array();
  for (const auto& u : m.busiest)
    j.begin_object()
      .field("unit", u.unit)
      .field("busy_ps", u.busy_ps)
      .field("utilisation", u.util)
      .end_object();
  j.end_array();
  j.field("kernel_latency_ps", m.kernel_latency_ps).end_object(); // 6.4
  j.key("groups");
  write_groups_json(j, in.groups);
  write_kernel_json(j, in.commands, per_pe);
  if (in.kernel)
    write_kernel_info_json(j, *in.kernel);
  // What reproduces the run: the build and the machine as resolved.
  j.key("kernbench");
  if (in.version.empty())
    j.null_value();
  else
    j.begin_object().field("version", in.version).field("git", in.git_hash).end_object();
  j.key("machine");
  if (in.machine)
    in.machine(j);
  else
    j.null_value();
  j.field("complete", in.stopped_by == 0);
  j.key("stopped_by");
  if (in.stopped_by != 0)
    j.value(std::string(stop_request::name_of(in.stopped_by)));
  else
    j.null_value();
  // Last: everything before it is the same bytes whatever the threads,
  // processes and host; this is not.
  const auto& inv = in.invocation;
  j.key("invocation").begin_object().key("command").begin_array();
  for (const auto& a : inv.command)
    j.value(a);
  j.end_array()
    .field("host", inv.host)
    .field("seed", inv.seed)
    .field("threads", uint64_t{in.threads})
    .field("processes", uint64_t{inv.processes})
    .end_object();
  j.key("timings");
  write_timings_json(j, in.phases);
  if (!in.memory.empty()) {
    j.key("memory");
    write_memory_json(j, in.memory);
  }
  j.end_object();
  return j.str();
}

} // namespace kb
