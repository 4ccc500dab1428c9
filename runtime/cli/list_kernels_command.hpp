#pragma once
// `kernbench list-kernels [--kernel-lib PATH ...]`: every kernel `run
// --kernel` can run (shipped, and those of the given kernel libraries), with
// its description and its arguments and their defaults.

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_list_kernels_command(CLI::App& app, int& exit_code);

} // namespace kb
