// kernbench: simulate a tiled NPU, run kernels on it, see where time goes.

#include "runtime/cli/phold_command.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/cli/schedule_command.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"kernbench: a tiled-NPU simulator"};
  app.require_subcommand(1);
  int exit_code = 0;
  kb::add_run_command(app, exit_code);
  kb::add_phold_command(app, exit_code);
  kb::add_list_components_command(app, exit_code);
  kb::add_schedule_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "kernbench: error: {}\n", e.what());
    return 2;
  }
  return exit_code;
}
