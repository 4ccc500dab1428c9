#pragma once
// `kernbench schedule FILE [--strategy auto|serial|cost] [--json OUT]`: read a
// scheduling problem (JSON or YAML), schedule it, validate the result
// independently, print the schedule, II, MII and the validator's verdict.

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_schedule_command(CLI::App& app, int& exit_code);

} // namespace kb
