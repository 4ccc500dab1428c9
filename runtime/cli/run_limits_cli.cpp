#include "runtime/cli/run_limits_cli.hpp"

#include "runtime/kernel/kernel_fiber.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace kb {

SimTime parse_sim_duration(const std::string& text, const std::string& option,
                           bool allow_zero) {
  static constexpr std::pair<std::string_view, double> units[] = {
    {"ps", 1.0}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
  constexpr uint64_t limit = uint64_t{1} << 48;
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format(
      "{} {}: {} (expected a simulated time with its unit: ps, ns, us, ms or s, e.g. 1ms)",
      option, text, why));
  };
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad("not a number");
  }
  std::string_view unit(text);
  unit.remove_prefix(used);
  while (!unit.empty() && unit.front() == ' ')
    unit.remove_prefix(1);
  for (const auto& [name, scale] : units) {
    if (unit != name)
      continue;
    const double ps = value * scale;
    if (!std::isfinite(ps) || ps < 0 || (ps == 0 && !allow_zero))
      throw bad(allow_zero ? "must not be negative" : "must be positive");
    if (ps > static_cast<double>(limit))
      throw bad(fmt::format("more than 2^48 ps ({} ps)", limit));
    if (ps != std::floor(ps))
      throw bad("not a whole number of picoseconds");
    return SimTime{static_cast<uint64_t>(ps)};
  }
  throw bad(unit.empty() ? "no unit" : fmt::format("unknown unit '{}'", unit));
}

void apply_run_limits(const run_cli& c, machine_options& o) {
  if (c.max_sim_time == "none")
    o.end = SimTime::infinity();
  else if (!c.max_sim_time.empty())
    o.end = parse_sim_duration(c.max_sim_time, "--max-sim-time");
  else if (c.runs_kernels()) // a kernel polling forever must not hang the run
    o.end = kernel_default_end;
  if (!std::isfinite(c.stall_timeout) || c.stall_timeout < 0 || c.stall_timeout > 86400)
    throw std::invalid_argument(fmt::format(
      "--stall-timeout {}: expected seconds from 0 (no watchdog) to 86400", c.stall_timeout));
  o.stall_timeout = std::chrono::milliseconds(static_cast<int64_t>(c.stall_timeout * 1000));
  if (c.stall_timeout > 0 && o.stall_timeout.count() == 0)
    o.stall_timeout = std::chrono::milliseconds(1);
  // A kernel's stack: enough for fmt and the tl:: calls' own frames, at
  // most what a process of many kernels can map.
  if (c.kernel_stack_kib < 64 || c.kernel_stack_kib > 1024 * 1024)
    throw std::invalid_argument(fmt::format(
      "--kernel-stack {}: expected KiB from 64 to 1048576 (1 GiB)", c.kernel_stack_kib));
  kernel_fiber::set_default_stack_bytes(size_t{c.kernel_stack_kib} * 1024);
}

} // namespace kb
