#pragma once
// `kernbench phold`: the PHOLD benchmark on the engine.

#include <CLI/App.hpp>

namespace kb {

/// Registers the `phold` subcommand on `app`; returns it.
CLI::App* add_phold_command(CLI::App& app, int& exit_code);

} // namespace kb
