// kernbench: simulate a tiled NPU, run kernels on it, see where time goes.
//
// Exit status: 0 success; 1 the run failed (an error during simulation, an
// output file or standard output that could not be written, a lost peer
// process, a kernel's prepare or reference that threw); 2 bad input (usage,
// options, config files, CLI11's own parse errors included). `kernbench`
// with no arguments prints the help and exits 0. The command line itself
// is runtime/cli/command_line.cpp (the Python module runs the same one).

#include "runtime/cli/command_line.hpp"
#include "runtime/io/signal_cleanup.hpp"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  // SIGINT, SIGTERM, SIGHUP: temporaries removed, child processes ended.
  kb::signal_cleanup::install();
  try {
    return kb::check_stdout(kb::run_command_line(std::vector<std::string>(argv + 1, argv + argc)));
  } catch (const kb::cli_failure& f) {
    std::fputs(f.printed().c_str(), stderr);
    // After a usage error (CLI11's), standard output is checked as well.
    return f.usage_error() ? kb::check_stdout(f.exit_code()) : f.exit_code();
  }
}
