#pragma once
// `kernbench run`: build the machine from the topology and drive PEs with
// the built-in driver (composite GEMM or MATH commands), then report.
// `kernbench list-components`: every node kind and its config keys.

#include <CLI/App.hpp>

#include <string>

namespace kb {

CLI::App* add_run_command(CLI::App& app, int& exit_code);
CLI::App* add_list_components_command(CLI::App& app, int& exit_code);

/// Directory of the default config files (config/): $KB_CONFIG_DIR, else
/// share/kernbench/config of the installation this binary belongs to
/// (`cmake --install`), else the source tree this binary was built from.
std::string default_config_dir();

/// For a program that embeds kernbench (the Python module, whose
/// /proc/self/exe is python3): its config/ directory, used when
/// $KB_CONFIG_DIR is not set. Call before any command runs.
void set_default_config_dir(std::string dir);

} // namespace kb
