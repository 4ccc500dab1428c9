#include "runtime/trace/trace_stats.hpp"

#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/trace/stage_pairs.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <queue>
#include <tuple>

namespace kb {

namespace {

std::string ns_str(uint64_t ps) { return fmt::format("{}.{:03d}", ps / 1000, ps % 1000); }

} // namespace

trace_stats compute_trace_stats(const trace_reader& in, size_t top) {
  trace_stats s;
  stage_pairer pairs;
  auto shorter = [](const stage_span& a, const stage_span& b) {
    return std::tie(a.duration_ps, b.start_ps) > std::tie(b.duration_ps, a.start_ps);
  };
  std::priority_queue<stage_span, std::vector<stage_span>, decltype(shorter)> heap(shorter);
  uint64_t first = UINT64_MAX;
  in.for_each([&](const trace_record& r) {
    ++s.records;
    first = std::min(first, r.t.ps());
    s.end_ps = std::max(s.end_ps, r.t.ps());
    const auto st = pairs.add(r);
    if (!st)
      return;
    const uint64_t d = (st->end - st->start).ps();
    const auto what = static_cast<uint16_t>(st->type);
    lane_stats& l = s.lanes[{st->node, st->lane}];
    if (l.stages == 0)
      l.what = what;
    ++l.stages;
    l.busy_ps += d;
    l.longest_ps = std::max(l.longest_ps, d);
    l.first_ps = std::min(l.first_ps, st->start.ps());
    l.last_ps = std::max(l.last_ps, st->end.ps());
    heap.push({d, st->start.ps(), st->node, st->lane, what, st->command, st->tile});
    if (heap.size() > top)
      heap.pop();
  });
  s.start_ps = s.records ? first : 0;
  while (!heap.empty()) {
    s.longest.push_back(heap.top());
    heap.pop();
  }
  std::reverse(s.longest.begin(), s.longest.end());
  return s;
}

void print_trace_stats(std::ostream& out, const trace_reader& in, const trace_stats& s) {
  auto name = [&](node_id n) { return n < in.names().size() ? in.names()[n] : std::string("?"); };
  // A trace from time 0 says its span; a windowed one also where it lies.
  fmt::print(out, "trace: {} records, {} nodes with records, simulated span {} ns{}\n\n",
             s.records, in.nodes().size(), ns_str(s.span_ps()),
             s.start_ps ? fmt::format(" (from {} to {} ns)", ns_str(s.start_ps), ns_str(s.end_ps))
                        : std::string());
  fmt::print(out, "per unit lane: stages, busy time, utilisation (of the span), idle while "
                  "active (first start to last end, not busy), longest stage\n");
  fmt::print(out, "  {:<40} {:>8} {:>14} {:>7} {:>14} {:>12}\n", "unit/lane", "stages",
             "busy ns", "util", "idle ns", "longest ns");
  for (const auto& [k, l] : s.lanes) {
    const uint64_t active = l.last_ps - l.first_ps;
    fmt::print(out, "  {:<40} {:>8} {:>14} {:>6.1f}% {:>14} {:>12}\n",
               fmt::format("{}/{}", name(k.first), lane_name(static_cast<stage_type>(l.what))),
               l.stages, ns_str(l.busy_ps),
               s.span_ps() ? 100.0 * l.busy_ps / s.span_ps() : 0.0,
               ns_str(active > l.busy_ps ? active - l.busy_ps : 0), ns_str(l.longest_ps));
  }
  fmt::print(out, "\nthe {} longest stages\n", s.longest.size());
  fmt::print(out, "  {:>12} {:>14}  {:<40} {}\n", "ns", "start ns", "unit/lane", "stage");
  for (const auto& st : s.longest)
    fmt::print(out, "  {:>12} {:>14}  {:<40} {} c{} t{}\n", ns_str(st.duration_ps),
               ns_str(st.start_ps),
               fmt::format("{}/{}", name(st.node), lane_name(static_cast<stage_type>(st.what))),
               to_string(static_cast<stage_type>(st.what)), st.command, st.tile);
}

} // namespace kb
