#pragma once
// `kernbench run [--kernel-lib PATH ...] --kernel NAME [--arg K=V ...]
// [--verify] [--dump-tensors DIR] [--oplog FILE]`: a shipped or loaded kernel
// on the machine, Phase 1 and (with
// --verify or --dump-tensors) the Phase 2 replay and its verdict.

#include "runtime/cli/kernel_arg_list.hpp"
#include "runtime/cli/run_cli.hpp"
#include "runtime/cli/run_session.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/engine/phase_clock.hpp"
#include "runtime/host/data_session.hpp"
#include "runtime/host/kernel_run.hpp"

#include <map>
#include <string>
#include <vector>

namespace kb {

/// Refuses, by name, options given on the command line that do not apply:
/// the built-in driver's with --kernel (`--M`: "use --arg M=..."), the
/// kernel's without it (std::invalid_argument). Workers of a split run are
/// not checked (rank 0 did).
void check_run_options(const run_cli& c);

/// Loads the --kernel-lib libraries (kernels/kernel_library.hpp); a bad
/// library, or --kernel-lib without --kernel, is std::invalid_argument.
void load_kernel_libraries(const run_cli& c);

/// The data options of a run (--verify, --dump-tensors, --oplog,
/// --op-digests, --phase2-workers).
data_request data_request_of(const run_cli& c);

/// A kernel's or a program's run options from the command line (--seed,
/// the data options, --input, --input-cast, --place, --pes); bad values are
/// std::invalid_argument.
kernel_run_options kernel_run_options_of(const run_cli& c);

/// Prints the op log, Phase 2 and verify lines of a run; returns its exit
/// status: 0, or 3 when an output does not match.
int print_data_result(const run_cli& c, const data_result& d);

/// Exit status: 0 (ran; with --verify: every output matches), 1 (the run
/// failed), 3 (an output does not match its reference).
/// Split over processes like the built-in driver (--procs, --peers; the
/// topology and component files are sent to the others as text).
/// `s`: the run's session, its machine read.
int run_kernel_cli(run_session& s);

} // namespace kb
