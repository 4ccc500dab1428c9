#pragma once
// `kernbench sweep --param KEY=v1,v2,... [--param ...] [--jobs N] [--csv FILE]
// [--plot METRIC:PARAM[:SERIES]]... -- <run options>`: runs the cross product
// of the parameters as `kernbench run` processes, writes one CSV row per
// point (a failed point is a row with its error) and plots it as `kernbench
// plot` does (runtime/cli/plot_script.hpp, scripts/plot_sweep.py).

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_sweep_command(CLI::App& app, int& exit_code);

} // namespace kb
