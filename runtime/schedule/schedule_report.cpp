#include "runtime/schedule/schedule_report.hpp"

#include "runtime/io/json_writer.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kb::sched {

namespace {

std::string opt(const std::optional<uint32_t>& v) { return v ? fmt::format("{}", *v) : "-"; }
std::string opt(const std::optional<int64_t>& v) { return v ? fmt::format("{}", *v) : "-"; }

std::optional<uint64_t> widen(const std::optional<uint32_t>& v) {
  return v ? std::optional<uint64_t>(*v) : std::nullopt;
}

} // namespace

std::string render_text(const problem& p, const schedule_analysis& a, const validation& v) {
  std::string out = fmt::format("{}: strategy {} ({})\n", p.source.empty() ? "problem" : p.source,
                                to_string(a.used), a.selected_because);
  out += fmt::format("II {}  MII {} (ResMII {}, RecMII {})", opt(a.ii), opt(a.mii), a.res_mii,
                     a.rec_mii                     ? fmt::format("{}", *a.rec_mii)
                     : a.used == strategy::serial ? "-" // not computed: no II
                                                  : "inf");
  if (a.used == strategy::cost && a.success)
    out += fmt::format("  rung {}, {} II tried", a.stats.rung, a.stats.ii_attempts);
  out += '\n';
  if (a.success) {
    std::size_t w = 2;
    for (const auto& op : p.ops)
      w = std::max(w, op.name.size());
    out += fmt::format("  {:<{}}  {:>5}  {:>5}  {:>5}  {:>4}  {:>5}\n", "op", w, "order", "stage",
                       "cycle", "slot", "depth");
    for (uint32_t op : a.emitted_order()) {
      const auto& s = a.seats[op];
      out += fmt::format("  {:<{}}  {:>5}  {:>5}  {:>5}  {:>4}  {:>5}\n", p.ops[op].name, w,
                         s.order, s.stage, opt(s.cycle), opt(s.slot), opt(s.depth));
    }
  }
  if (a.used == strategy::cost) {
    const auto& st = a.stats;
    out += fmt::format(
      "search: gates G1 hold {} / G2 dead {} / G3 bump {} / G4 reorder {}; arms permute {} / "
      "fuse {} / retry {} / cost {}; evictions {}; clears {}; exact search {} nodes, {} II "
      "refuted\n",
      st.g1_hold_over, st.g2_mark_dead, st.g3_bump_cycle, st.g4_reorder_group, st.arm_permute,
      st.arm_fuse, st.arm_retry, st.arm_cost, st.evictions, st.clears, st.exact_nodes,
      st.exact_refuted);
  }
  for (const auto& d : a.diagnostics)
    out += fmt::format("{}: {}\n", to_string(d.severity), d.message);
  if (v.ok)
    out += fmt::format("validator: ok (independent MII {})\n", opt(v.mii));
  else
    for (const auto& msg : v.violations)
      out += fmt::format("validator: FAIL: {}\n", msg);
  return out;
}

std::string render_json(const problem& p, const schedule_analysis& a, const validation& v) {
  json_writer j;
  j.begin_object();
  j.field("strategy", to_string(a.used));
  j.field("selected_because", a.selected_because);
  j.field("success", a.success);
  j.key("ii").value(widen(a.ii));
  j.key("mii").value(widen(a.mii));
  j.field("res_mii", uint64_t{a.res_mii});
  j.key("rec_mii").value(widen(a.rec_mii));
  j.key("ops").begin_array();
  for (uint32_t op : a.emitted_order()) {
    const auto& s = a.seats[op];
    j.begin_object();
    j.field("name", p.ops[op].name);
    j.field("stage", uint64_t{s.stage});
    j.field("order", uint64_t{s.order});
    j.key("cycle").value(s.cycle);
    j.key("slot").value(widen(s.slot));
    j.key("depth").value(widen(s.depth));
    j.end_object();
  }
  j.end_array();
  j.key("diagnostics").begin_array();
  for (const auto& d : a.diagnostics) {
    j.begin_object();
    j.field("level", to_string(d.severity));
    j.field("message", d.message);
    j.end_object();
  }
  j.end_array();
  if (a.used == strategy::cost) {
    const auto& st = a.stats;
    j.key("search").begin_object();
    j.field("rung", st.rung);
    j.field("ii_attempts", st.ii_attempts);
    j.field("g1_hold_over", st.g1_hold_over);
    j.field("g2_mark_dead", st.g2_mark_dead);
    j.field("g3_bump_cycle", st.g3_bump_cycle);
    j.field("g4_reorder_group", st.g4_reorder_group);
    j.field("arm_permute", st.arm_permute);
    j.field("arm_fuse", st.arm_fuse);
    j.field("arm_retry", st.arm_retry);
    j.field("arm_cost", st.arm_cost);
    j.field("evictions", st.evictions);
    j.field("clears", st.clears);
    j.field("exact_nodes", st.exact_nodes);
    j.field("exact_refuted", st.exact_refuted);
    j.end_object();
  }
  j.key("validator").begin_object();
  j.field("ok", v.ok);
  j.key("mii").value(widen(v.mii));
  j.key("violations").begin_array();
  for (const auto& msg : v.violations)
    j.value(msg);
  j.end_array();
  j.end_object();
  j.end_object();
  return j.str();
}

} // namespace kb::sched
