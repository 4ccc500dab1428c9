#pragma once
// `kernbench peer --listen HOST:PORT [--once]`: a process that waits for a
// launcher (`kernbench run --peers`), checks its version and configuration,
// runs the part of the run it is given (a `kernbench run --rank R` child
// process, the same worker `run --procs` starts), reports how it ended, and
// waits for the next run (or exits with `--once`). docs/distributed.md.

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_peer_command(CLI::App& app, int& exit_code);

} // namespace kb
