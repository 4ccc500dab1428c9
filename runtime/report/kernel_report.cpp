#include "runtime/report/kernel_report.hpp"

#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/report/kernel_split.hpp"
#include "runtime/report/pe_groups.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <optional>

namespace kb {

namespace {

/// How a step joins the chain before it.
std::string joined(const path_step& s) {
  const command_stat& c = *s.command;
  if (s.joined_by == "depends")
    return fmt::format("started when cmd {}, whose data it needs, was done", c.held_by);
  if (s.joined_by == "engine")
    return fmt::format("started when cmd {} left its engine's queue", c.held_by);
  return c.after ? fmt::format("issued when cmd {}'s done notice resumed the kernel", c.after)
                 : std::string("issued at the kernel's start");
}

double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * part / whole : 0.0; }

/// The critical path's first and last commands the text report lists.
constexpr size_t path_ends = 32;

} // namespace

std::string unit_name(uint8_t unit) {
  if (unit == 0xff)
    return "pipeline";
  switch (static_cast<stage_type>(unit)) {
    case stage_type::dma_read: return "pe_dma/read";
    case stage_type::dma_write: return "pe_dma/write";
    case stage_type::gemm: return "pe_gemm";
    case stage_type::math: return "pe_math";
    case stage_type::fetch: return "pe_fetch_store/fetch";
    case stage_type::store: return "pe_fetch_store/store";
  }
  return "?";
}

void write_kernel_summary(std::ostream& out, const std::vector<pe_commands>& pes, bool grouped,
                          bool every_step) {
  std::vector<std::pair<const pe_commands*, kernel_time>> ran;
  for (const auto& p : pes)
    if (const kernel_time t = kernel_time_of(p); t.ran)
      ran.emplace_back(&p, t);
  if (ran.empty())
    return;
  fmt::print(out, "\nkernel time (start -> return; its own code takes no simulated time "
                  "between tl:: calls, DESIGN §5)\n");
  if (grouped) {
    const kernel_group g = group_kernel_time(pes);
    const spread &s = g.span, &l = g.blocked_load, &w = g.wait, &m = g.tcm_wait;
    fmt::print(out, "  {} PEs  start -> return median {} ns, max {} ns ({})\n", s.count,
               summary_ns(s.median), summary_ns(s.max), s.max_at);
    fmt::print(out, "  blocked on loads median {} ns ({:.1f}%)  waiting on handles median {} ns "
                    "({:.1f}%)  waiting for TCM max {} ns\n",
               summary_ns(l.median), pct(l.median, s.median), summary_ns(w.median),
               pct(w.median, s.median), summary_ns(m.max));
  } else {
    for (const auto& [p, t] : ran) {
      const uint64_t span = t.end_ps - std::min(t.start_ps, t.end_ps);
      fmt::print(out, "  {:<18} start {:>10} ns  return {:>12} ns  blocked on loads {} ns "
                      "({:.1f}%)  waiting on handles {} ns ({:.1f}%)  waiting for TCM {} ns  "
                      "computing {} ns{}\n",
                 p->pe, summary_ns(t.start_ps), t.finished ? summary_ns(t.end_ps) : "never",
                 summary_ns(t.blocked_load_ps), pct(t.blocked_load_ps, span),
                 summary_ns(t.wait_ps), pct(t.wait_ps, span), summary_ns(t.tcm_wait_ps),
                 summary_ns(t.running_ps()), t.finished ? "" : "  (did not return)");
    }
  }
  const critical_path path = critical_path_of(pes);
  if (path.pe.empty())
    return;
  fmt::print(out, "\ncritical path: {}'s kernel returned last, at {} ns (started at {} ns); "
                  "the chain of commands that decided it\n",
             path.pe, summary_ns(path.time.end_ps), summary_ns(path.time.start_ps));
  // A kernel that polled a million times has a chain of a million commands:
  // its ends are what tell (a text report of hundreds of MB took a stopped
  // run ~100 s to write, issue 61 item 5).
  const size_t n = path.steps.size();
  for (size_t i = 0; i < n; ++i) {
    if (!every_step && n > 2 * path_ends && i == path_ends) {
      fmt::print(out, "  ... {} more commands of the chain ...\n", n - 2 * path_ends);
      i = n - path_ends - 1;
      continue;
    }
    const path_step& s = path.steps[i];
    const command_stat& c = *s.command;
    fmt::print(out, "  cmd {:<4} {:<44} on {:<20} issue {:>10} ns  start {:>10} ns  done {:>10} ns"
                    "  ({} ns on its units)  {}\n",
               c.id, c.what, unit_name(c.unit), summary_ns(c.issue_ps), summary_ns(c.start_ps),
               summary_ns(c.done_ps), summary_ns(c.done_ps - std::min(c.start_ps, c.done_ps)),
               joined(s));
  }
  if (path.steps.empty())
    fmt::print(out, "  (the kernel returned without waiting for any command)\n");
  else
    fmt::print(out, "  -> the kernel returned when cmd {}'s done notice resumed it\n",
               path.steps.back().command->id);
}

void write_kernel_json(json_writer& j, const std::vector<pe_commands>& pes, bool per_pe) {
  j.key("kernel_time").begin_array();
  for (const auto& p : pes) {
    const kernel_time t = kernel_time_of(p);
    if (!per_pe || !t.ran)
      continue;
    j.begin_object()
      .field("pe", p.pe)
      .field("finished", t.finished)
      .field("start_ps", t.start_ps)
      .field("end_ps", t.end_ps)
      .field("computing_ps", t.running_ps())
      .field("blocked_load_ps", t.blocked_load_ps)
      .field("wait_ps", t.wait_ps)
      .field("tcm_wait_ps", t.tcm_wait_ps);
    const kernel_split sp = kernel_split_of(p); // 6.4
    j.field("on_compute_ps", sp.computing_ps)
      .field("on_loads_ps", sp.loads_ps)
      .field("on_stores_ps", sp.stores_ps)
      .field("in_transit_ps", sp.transit_ps)
      .end_object();
  }
  j.end_array();
  const critical_path path = critical_path_of(pes);
  j.key("critical_path");
  if (path.pe.empty()) {
    j.null_value();
    return;
  }
  j.begin_object()
    .field("pe", path.pe)
    .field("start_ps", path.time.start_ps)
    .field("end_ps", path.time.end_ps);
  j.key("steps").begin_array();
  for (const path_step& s : path.steps) {
    const command_stat& c = *s.command;
    j.begin_object()
      .field("command", c.id)
      .field("what", c.what)
      .field("unit", unit_name(c.unit))
      .field("issue_ps", c.issue_ps)
      .field("start_ps", c.start_ps)
      .field("done_ps", c.done_ps)
      .field("joined_by", s.joined_by)
      .field("after", s.joined_by == "kernel" ? c.after : c.held_by)
      .end_object();
  }
  j.end_array().end_object();
}

void write_kernel_info_json(json_writer& j, const kernel_info& k) {
  j.key("kernel").begin_object().field("name", k.name);
  j.key("args").begin_object();
  for (const auto& [name, v] : k.args)
    j.field(name, v);
  j.end_object();
  j.key("grid").begin_array().value(uint64_t{k.grid[0]}).value(uint64_t{k.grid[1]}).value(
    uint64_t{k.grid[2]});
  j.end_array();
  j.field("pes", k.pes);
  j.key("tensors").begin_array();
  for (const auto& t : k.tensors)
    j.begin_object()
      .field("name", t.name)
      .field("rows", uint64_t{t.rows})
      .field("cols", uint64_t{t.cols})
      .field("dtype", to_string(t.type))
      .field("output", t.output)
      .field("address", t.address)
      .field("where", t.where)
      .field("scratch", t.scratch)
      .end_object();
  j.end_array();
  j.field("verified", k.verified);
  j.key("verdict");
  if (!k.verified) {
    j.null_value();
  } else {
    bool ok = true;
    for (const auto& v : k.verdicts)
      ok = ok && v.ok;
    j.value(ok ? "PASS" : "FAIL");
  }
  j.key("outputs").begin_array();
  for (const auto& v : k.verdicts)
    j.begin_object()
      .field("tensor", v.tensor)
      .field("ok", v.ok)
      .field("elements", v.elements)
      .field("mismatches", v.mismatches)
      .key("max_abs_error")
      .value(std::isfinite(v.max_abs_error) ? std::optional<double>(v.max_abs_error) : std::nullopt)
      .field("text", v.text)
      .end_object();
  j.end_array();
  if (!k.launches.empty()) { // a program run (schema 6.2; ended_on, ended_by_command 6.3)
    j.key("launches").begin_array();
    for (const auto& l : k.launches) {
      j.begin_object()
        .field("kernel", l.kernel)
        .field("queue", l.queue)
        .field("pes", l.pes)
        .field("programs", l.programs);
      j.key("after").begin_array();
      for (const uint32_t a : l.after)
        j.value(uint64_t{a});
      j.end_array();
      j.field("issue_ps", l.issue_ps).field("done_ps", l.done_ps).key("decided_by");
      if (l.decided_by)
        j.value(uint64_t{*l.decided_by});
      else
        j.null_value();
      j.field("critical", l.critical).key("ended_on"); // 6.3
      if (l.ended_on.empty())
        j.null_value();
      else
        j.value(l.ended_on);
      j.key("ended_by_command");
      if (l.ended_by_command)
        j.value(*l.ended_by_command);
      else
        j.null_value();
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
}

} // namespace kb
