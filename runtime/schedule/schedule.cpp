// The selector predicate and the one entry point over both generators.

#include "runtime/schedule/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kb::sched {

selection select_strategy(const problem& p) {
  if (p.force_serial_execution)
    return {strategy::serial, "force_serial_execution is set"};
  if (p.ops.size() < p.serial_threshold)
    return {strategy::serial, fmt::format("{} ops, fewer than serial_threshold {}",
                                          p.ops.size(), p.serial_threshold)};
  if (std::none_of(p.ops.begin(), p.ops.end(), [](const op_spec& op) { return op.bears_resources(); }))
    return {strategy::serial, "no op uses a resource pool"};
  return {strategy::cost, fmt::format("{} ops, at least one using a resource pool", p.ops.size())};
}

schedule_analysis generate_schedule(const problem& p, const schedule_options& o) {
  check_problem(p);
  selection sel;
  if (o.requested == strategy::automatic) {
    sel = select_strategy(p);
  } else {
    sel.chosen = o.requested;
    sel.reason = fmt::format("--strategy {} requested", to_string(o.requested));
  }
  auto a = sel.chosen == strategy::serial ? generate_serial(p) : generate_modulo(p, o.modulo);
  a.selected_because = std::move(sel.reason);
  return a;
}

} // namespace kb::sched
