#pragma once
// Where a PE's kernel spent its time, by what the PE's units were doing for
// it (issue 62 item 3; docs/adr/0045-a-kernel-authors-report.md). A kernel's
// own code takes no simulated time between its tl:: calls (DESIGN §5), so
// its span (start -> return) is almost all suspension: on a load's data, on
// a handle, on TCM. Each suspension ends with one command's done notice
// (command_stat::resumed_kernel, suspended since blocked_from_ps). Every
// instant of a suspension is charged to the first of these that the PE had
// a command in (from its first tile's release to its done notice):
//
//   computing     a dot, an element-wise/reduce/cast op, a composite GEMM/MATH
//   loads         a tl.load (its data in flight)
//   stores        a tl.store
//   transit       none of them: commands and notices on their way, TCM
//
// So a kernel that waits for a load while its GEMM unit works is computing
// (the units, not the kernel's waits, set its pace), and computing is never
// more than the time a compute command was in the PE's pipeline. The four
// add up to the suspended time; `running` is the rest of the span (0 unless
// the kernel never returned, or, in a host program, the PE's gaps between
// its launches).

#include "runtime/report/pe_commands.hpp"

#include <cstdint>

namespace kb {

struct kernel_split {
  uint64_t span_ps = 0; ///< start -> return (kernel_time)
  uint64_t computing_ps = 0, loads_ps = 0, stores_ps = 0, transit_ps = 0;
  uint64_t running_ps = 0; ///< span - the four above
};

/// The split of one PE's kernel (all zeros when it ran none).
kernel_split kernel_split_of(const pe_commands& p);

} // namespace kb
