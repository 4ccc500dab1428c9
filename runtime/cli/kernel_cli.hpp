#pragma once
// `kernbench run [--kernel-lib PATH ...] --kernel NAME [--arg K=V ...]
// [--verify] [--dump-tensors DIR] [--oplog FILE]`: a shipped or loaded kernel
// on the machine, Phase 1 and (with
// --verify or --dump-tensors) the Phase 2 replay and its verdict.

#include "runtime/cli/run_cli.hpp"
#include "runtime/config/topology_spec.hpp"

#include <map>
#include <string>
#include <vector>

namespace kb {

/// KEY=VALUE pairs (a missing '=', an empty key or a repeated key is
/// std::invalid_argument naming it).
std::map<std::string, std::string> parse_kernel_args(const std::vector<std::string>& args,
                                                     const std::string& option = "--arg");

/// Loads the --kernel-lib libraries (kernels/kernel_library.hpp); a bad
/// library, or --kernel-lib without --kernel, is std::invalid_argument.
void load_kernel_libraries(const run_cli& c);

/// Exit status: 0 (ran; with --verify: every output matches), 1 (the run
/// failed), 3 (an output does not match its reference).
int run_kernel_cli(const run_cli& c, topology_spec topo);

} // namespace kb
