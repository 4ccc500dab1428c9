// The serial generator: a topological walk over the distance-0 edges with a
// ready queue popped in program order; every op at stage 0. Unlike the
// original it names every constraint it ignores.

#include "runtime/schedule/constraint_groups.hpp"
#include "runtime/schedule/dep_graph.hpp"
#include "runtime/schedule/mii.hpp"
#include "runtime/schedule/schedule.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <queue>

namespace kb::sched {

namespace {

std::vector<std::string> names_of(const problem& p, const std::vector<uint32_t>& ops) {
  std::vector<std::string> out;
  out.reserve(ops.size());
  for (uint32_t v : ops)
    out.push_back(p.ops[v].name);
  return out;
}

/// One warning per constraint the serial walk does not honour.
void warn_ignored(const problem& p, schedule_analysis& a) {
  using lvl = diagnostic::level;
  for (const auto& op : p.ops)
    if (op.max_depth)
      a.note(lvl::warning, fmt::format("serial path ignores max_depth {} of op '{}'",
                                       *op.max_depth, op.name));
  for (const auto& group : same_depth_groups(p).groups)
    if (group.size() > 1)
      a.note(lvl::warning, fmt::format("serial path ignores the same-depth group {{{}}}",
                                       fmt::join(names_of(p, group), ", ")));
  for (uint32_t pool = 0; pool < p.pools.size(); ++pool) {
    std::vector<uint32_t> users;
    for (uint32_t v = 0; v < p.ops.size(); ++v)
      if (p.ops[v].total_use(pool) > 0)
        users.push_back(v);
    if (!users.empty())
      a.note(lvl::warning,
             fmt::format("serial path ignores the capacity {} of pool '{}' (used by {})",
                         p.pools[pool].capacity, p.pools[pool].name,
                         fmt::join(names_of(p, users), ", ")));
  }
  for (const auto& e : p.edges)
    if (e.distance > 0)
      a.note(lvl::warning, fmt::format("serial path ignores loop-carried edge {}", p.describe(e)));
}

} // namespace

schedule_analysis generate_serial(const problem& p) {
  const dep_graph g(p);
  schedule_analysis a = begin_analysis(p, g, strategy::serial);
  warn_ignored(p, a);

  std::vector<uint32_t> in(p.ops.size(), 0);
  for (const auto& e : p.edges)
    if (e.distance == 0)
      ++in[e.to];
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t v = 0; v < p.ops.size(); ++v)
    if (in[v] == 0)
      ready.push(v);
  uint32_t order = 0;
  while (!ready.empty()) {
    const uint32_t v = ready.top();
    ready.pop();
    a.seats[v].stage = 0;
    a.seats[v].order = order++;
    for (uint32_t e : g.succs(v))
      if (g.edge(e).distance == 0 && --in[g.edge(e).to] == 0)
        ready.push(g.edge(e).to);
  }
  a.success = order == p.ops.size();
  if (!a.success) {
    const auto cycle = g.zero_distance_cycle();
    std::vector<uint32_t> left;
    for (uint32_t v = 0; v < p.ops.size(); ++v)
      if (in[v] > 0)
        left.push_back(v);
    a.note(diagnostic::level::error,
           fmt::format("dependence cycle: {} -> {} (ops left unscheduled: {})",
                       fmt::join(names_of(p, cycle), " -> "), p.ops[cycle.front()].name,
                       fmt::join(names_of(p, left), ", ")));
  }
  return a;
}

} // namespace kb::sched
