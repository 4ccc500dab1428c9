#pragma once
// `kernbench plot RESULT... [--plot SPEC]... [--out FILE]...`: figures of
// results already made, sweep CSVs and `run --json` results (one point
// each) together, by scripts/plot_sweep.py as `sweep --plot` draws them.

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_plot_command(CLI::App& app, int& exit_code);

} // namespace kb
