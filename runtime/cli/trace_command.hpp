#pragma once
// `kernbench trace convert IN OUT.json`: a trace (streamed or not) as Chrome
// / Perfetto JSON. `kernbench trace stats IN [--top N]`: per unit lane busy
// time and the longest stages.

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_trace_command(CLI::App& app, int& exit_code);

} // namespace kb
