#pragma once
// `kernbench run --program NAME [--arg K=V ...] [--verify] ...`: a host
// program (kernels/program.hpp) on the machine: its launches issued by the
// host node as their dependencies complete, the whole op log replayed and
// every output verified; the report adds a table of the launches and the
// program's critical path across them.

#include "runtime/cli/run_session.hpp"

namespace kb {

/// Exit status as run_kernel_cli's: 0, 1 (the run failed), 3 (an output
/// does not match the program's reference).
int run_program_cli(run_session& s);

} // namespace kb
