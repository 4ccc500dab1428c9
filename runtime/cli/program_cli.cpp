#include "runtime/cli/program_cli.hpp"

#include "kernels/program.hpp"
#include "runtime/cli/kernel_arg_list.hpp"
#include "runtime/cli/kernel_cli.hpp"
#include "runtime/cli/memory_budget.hpp"
#include "runtime/cli/run_inputs.hpp"
#include "runtime/cli/run_outputs.hpp"
#include "runtime/host/program_run.hpp"
#include "runtime/machine/pipeline_stats.hpp"
#include "runtime/report/pe_commands.hpp"
#include "runtime/report/run_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

namespace kb {

namespace {

/// The host's figures of each launch.
struct launch_times {
  uint64_t issue_ps = 0, done_ps = 0;
  uint32_t decided_by = 0; ///< 1 + launch (0: the start)
};

std::vector<launch_times> times_of(const machine_run& run, size_t launches) {
  std::vector<launch_times> out(launches);
  for (const node_summary& n : run.result.nodes) {
    if (n.name != "host")
      continue;
    for (size_t i = 0; i < launches; ++i) {
      const std::string q = std::to_string(i);
      out[i].issue_ps = figure_or_zero(n, program_stats::issue_ps, q);
      out[i].done_ps = figure_or_zero(n, program_stats::done_ps, q);
      out[i].decided_by = static_cast<uint32_t>(figure_or_zero(n, program_stats::decided_by, q));
    }
  }
  return out;
}

/// The program's critical path, first launch first: from the launch that
/// ended last back through the launch whose completion let each be issued.
std::vector<size_t> program_path(const std::vector<launch_times>& t) {
  size_t last = 0;
  for (size_t i = 1; i < t.size(); ++i)
    if (t[i].done_ps > t[last].done_ps)
      last = i;
  std::vector<size_t> path{last};
  while (t[path.back()].decided_by != 0 && path.size() <= t.size())
    path.push_back(t[path.back()].decided_by - 1);
  std::reverse(path.begin(), path.end());
  return path;
}

std::string ns(uint64_t ps) { return fmt::format("{:.3f}", static_cast<double>(ps) / 1000.0); }

/// What decided when a launch ended: the PE whose kernel returned last (the
/// first in the machine's order on a tie) and the command whose done notice
/// resumed it then (0: none), from the PE_CPUs' launch{}.end_ps and
/// launch{}.last_command figures, read in one pass over each PE's figures.
struct launch_end {
  const pe_commands* pe = nullptr;
  uint64_t end_ps = 0, command = 0;
};

std::vector<launch_end> ends_of(const std::vector<pe_commands>& pes, size_t launches) {
  std::vector<launch_end> out(launches);
  for (const pe_commands& p : pes) {
    if (!p.cpu)
      continue;
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> mine; // launch -> end, command
    for (const figure& f : p.cpu->figures) {
      if (!f.is(kernel_stats::launch_end_ps) && !f.is(kernel_stats::launch_last_command))
        continue;
      uint64_t l = 0;
      const auto [at, ec] = std::from_chars(f.qualifier.data(),
                                            f.qualifier.data() + f.qualifier.size(), l);
      if (ec != std::errc{} || l >= launches)
        continue;
      (f.is(kernel_stats::launch_end_ps) ? mine[l].first : mine[l].second) = f.value;
    }
    for (const auto& [l, e] : mine)
      if (!out[l].pe || e.first > out[l].end_ps)
        out[l] = {&p, e.first, e.second};
  }
  return out;
}

std::string ended_text(const launch_end& e, size_t l) {
  if (!e.pe)
    return {};
  std::string what;
  if (e.command > 0 && e.command <= e.pe->rows.size())
    what = fmt::format(" when cmd {} ({})'s done notice resumed it", e.command,
                       e.pe->rows[e.command - 1].what);
  return fmt::format("; launch {} ended with {}'s kernel, which returned at {:.3f} ns{}", l,
                     e.pe->pe, static_cast<double>(e.end_ps) / 1000.0, what);
}

/// The launches the table lists: all with --per-command; else those on the
/// critical path and then the longest, at most `launch_lines`, in order.
constexpr size_t launch_lines = 8;

std::vector<bool> listed_launches(const std::vector<launch_times>& t,
                                  const std::vector<size_t>& path, bool all) {
  std::vector<bool> listed(t.size(), all);
  size_t n = 0;
  for (const size_t i : path)
    if (n < launch_lines && !listed[i]) {
      listed[i] = true;
      ++n;
    }
  std::vector<size_t> order(t.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  const auto took = [&](size_t i) { return t[i].done_ps - std::min(t[i].done_ps, t[i].issue_ps); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return took(a) > took(b); });
  for (const size_t i : order)
    if (n < launch_lines && !listed[i]) {
      listed[i] = true;
      ++n;
    }
  return listed;
}

void print_launches(const program_run_result& r, const std::vector<launch_times>& t,
                    const std::vector<launch_end>& ends, bool every_launch) {
  size_t queues = 0;
  {
    std::vector<std::string> q;
    for (const auto& l : r.launches)
      if (std::find(q.begin(), q.end(), l.queue) == q.end())
        q.push_back(l.queue);
    queues = q.size();
  }
  fmt::print("\nprogram {} ({} launches on {} queue(s), {} PE(s))\n", r.program,
             r.launches.size(), queues, r.pes.size());
  fmt::print("  {:>6}  {:<16} {:<8} {:>5} {:>8} {:>14} {:>14} {:>14}  {}\n", "launch", "kernel",
             "queue", "PEs", "programs", "issued (ns)", "done (ns)", "took (ns)", "after");
  const std::vector<size_t> path = program_path(t);
  const std::vector<bool> listed = listed_launches(t, path, every_launch);
  size_t skipped = 0;
  for (size_t i = 0; i < r.launches.size(); ++i) {
    if (!listed[i]) {
      ++skipped;
      continue;
    }
    const launch_info& l = r.launches[i];
    std::string after;
    for (const uint32_t a : l.after)
      after += (after.empty() ? "" : ",") + std::to_string(a);
    fmt::print("  {:>6}  {:<16} {:<8} {:>5} {:>8} {:>14} {:>14} {:>14}  {}\n", i, l.kernel,
               l.queue, l.pes.size(), l.programs, ns(t[i].issue_ps), ns(t[i].done_ps),
               ns(t[i].done_ps - std::min(t[i].done_ps, t[i].issue_ps)),
               after.empty() ? "-" : after);
  }
  if (skipped > 0)
    fmt::print("  ({} more launches, neither critical nor the longest: --per-command, --json)\n",
               skipped);
  const size_t last = path.back();
  std::string chain;
  for (const size_t i : path)
    chain += fmt::format("{}launch {} ({})", chain.empty() ? "" : " -> ", i, r.launches[i].kernel);
  fmt::print("  critical path   {}: the program ends at {} ns{}\n", chain, ns(t[last].done_ps),
             ended_text(ends[last], last));
}

} // namespace

int run_program_cli(run_session& s) {
  const run_cli& c = s.c;
  const program_def& def = find_program(c.program);
  const kernel_args args = kernel_args::for_program(def.name, def.args, parse_kernel_args(c.args));
  kernel_run_options o = kernel_run_options_of(c);
  s.join();
  std::unique_ptr<heartbeat> beat =
    s.start_heartbeat(fmt::format("kernbench run --program {}", def.name), {});
  o.machine = s.opts;
  program_run_result r = run_program(std::move(s.in.topo), def, args, o);
  beat.reset();
  if (!s.peers && c.rank == 0 && !r.run.error.empty()) {
    fmt::print(stderr, "kernbench run --program {}: {}\n", def.name, r.run.error);
    return 1;
  }
  if (const auto done = s.end(r.run.error))
    return *done;
  const bool stopped = r.run.result.stopped;
  kernel_info info;
  info.name = def.name;
  info.args = args.values();
  info.pes = r.pes.size();
  for (const auto& l : r.launches)
    info.programs += l.programs;
  for (size_t i = 0; i < r.specs.size() && i < r.tensors.size(); ++i) {
    const kernel_tensor& t = r.specs[i];
    info.tensors.push_back({t.name, t.rows, t.cols, t.type, t.output, t.scratch,
                            r.tensors[i].second.address, r.where[i]});
  }
  info.verified = c.verify && !stopped && r.data.replayed;
  const std::vector<launch_times> times = times_of(r.run, r.launches.size());
  for (size_t i = 0; i < r.launches.size(); ++i) {
    const launch_info& l = r.launches[i];
    kernel_info::launch row{l.kernel, l.queue, l.pes.size(), l.programs, l.after,
                            times[i].issue_ps, times[i].done_ps, std::nullopt, false, {},
                            std::nullopt};
    if (times[i].decided_by != 0)
      row.decided_by = times[i].decided_by - 1;
    info.launches.push_back(std::move(row));
  }
  if (!stopped)
    for (const size_t i : program_path(times))
      info.launches[i].critical = true;
  for (const auto& v : r.data.verdicts)
    info.verdicts.push_back({v.name, v.ok, v.elements, v.mismatches, v.max_abs_error, v.describe()});
  report_input rep;
  if (const auto t = args.values().find("dtype"); t != args.values().end())
    rep.compute_dtype = parse_dtype(t->second).value_or(dtype::f16);
  rep.label = fmt::format("program {}", def.name);
  rep.kernel = &info;
  s.describe(rep, r.run, r.pes);
  index_commands(rep);
  const std::vector<launch_end> ends = ends_of(rep.commands, r.launches.size());
  for (size_t i = 0; i < ends.size(); ++i)
    if (ends[i].pe) {
      info.launches[i].ended_on = ends[i].pe->pe;
      if (ends[i].command > 0)
        info.launches[i].ended_by_command = ends[i].command;
    }
  print_summary(c, rep);
  print_launches(r, times, ends, c.per_command);
  for (const auto& t : info.tensors)
    fmt::print("  tensor {:<8} {}x{} {} at 0x{:x} ({}){}\n", t.name, t.rows, t.cols,
               to_string(t.type), t.address, t.where,
               t.output ? ", output" : t.scratch ? ", scratch" : "");
  int status = 0;
  if (stopped)
    fmt::print("  data            not replayed: the run was stopped before its end (no op "
               "log, tensors or verdict)\n");
  else {
    status = print_data_result(c, r.data);
    if (status != 0) // name the launch that last wrote each failing output
      for (const auto& v : r.data.verdicts)
        if (!v.ok)
          for (size_t i = r.launches.size(); i-- > 0;)
            if (std::any_of(r.launches[i].writes.begin(), r.launches[i].writes.end(),
                            [&](const std::string& w) { return w == v.name; })) {
              fmt::print("  mismatch        {} was last written by launch {} ({} on queue {})\n",
                         v.name, i, r.launches[i].kernel, r.launches[i].queue);
              break;
            }
  }
  s.write(rep);
  return s.close(status);
}

} // namespace kb
