#pragma once
// Every PE's commands as the report reads them: the two halves of each
// command_stat (PE_CPU's and PE_SCHEDULER's) joined by id, the kernel's
// time split on the PE, and the critical path of the kernel's latency
// (docs/adr/0024-one-report-for-every-run.md). A PE's command list is its
// own: a kernel issues data-dependent commands, the built-in driver the
// same list on every PE.

#include "runtime/engine/simulation.hpp"
#include "runtime/machine/command_table.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

struct pe_commands {
  std::string pe;                      ///< "sip0.cube0.pe3"
  const node_summary* cpu = nullptr;   ///< its PE_CPU (null: none reported)
  const node_summary* scheduler = nullptr;
  std::vector<command_stat> rows;      ///< by id, both halves filled
};

/// The commands of each PE of `pes`, in that order.
/// (On up to `threads` threads: each PE's rows are its own.)
std::vector<pe_commands> commands_of(const run_result& r, const std::vector<std::string>& pes,
                                     size_t threads = 1);

/// Where one PE's kernel spent its time (ps): from its start (t = 0 or the
/// launch's arrival) to its return, suspended on a load's data, on
/// tl.wait/wait_all, on TCM for a new tensor, and the rest, running (a
/// kernel's own code takes no simulated time between its calls, DESIGN §5,
/// so that is the time it spent in no wait at all: 0 unless it never returned).
struct kernel_time {
  bool ran = false;      ///< the PE ran a kernel
  bool finished = false; ///< it returned
  uint64_t start_ps = 0, end_ps = 0;
  uint64_t blocked_load_ps = 0, wait_ps = 0, tcm_wait_ps = 0;
  /// The command whose done notice the kernel's last step handled (0: it
  /// returned in its first step): where its critical path ends.
  uint64_t last_resumed_by = 0;
  uint64_t running_ps() const;
};
kernel_time kernel_time_of(const pe_commands& p);

/// One command on the critical path, and how it joins the one before.
struct path_step {
  const command_stat* command = nullptr;
  /// kernel: the kernel issued it after the previous step's done notice
  /// resumed it (or at its start); depends: it waited in PE_SCHEDULER for
  /// the previous step's data; feeder: it waited behind the previous step
  /// in PE_SCHEDULER's feeder (commands are fed in order).
  std::string_view joined_by;
};

struct critical_path {
  std::string pe;               ///< the PE whose kernel returned last
  kernel_time time;
  std::vector<path_step> steps; ///< first to last
};

/// The chain of commands that decided when the last kernel returned: from
/// that kernel's last resume back, each step's predecessor is the command
/// that held its start (a data dependency or the feeder before it), or if
/// nothing held it, the command whose done notice let the kernel issue it.
/// Empty steps when no PE ran a kernel that waited for anything.
critical_path critical_path_of(const std::vector<pe_commands>& pes);

} // namespace kb
