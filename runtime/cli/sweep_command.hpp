#pragma once
// `kernbench sweep --param KEY=v1,v2,... [--param ...] [--jobs N] [--csv FILE]
// [--plot METRIC:PARAM] -- <run options>`: runs the cross product of the
// parameters as `kernbench run` processes, writes one CSV row per point
// (a failed point is a row with its error) and plots a metric against a
// parameter with scripts/plot_sweep.py (matplotlib), PNG and SVG.

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_sweep_command(CLI::App& app, int& exit_code);

} // namespace kb
