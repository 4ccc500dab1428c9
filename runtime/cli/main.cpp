// kernbench: simulate a tiled NPU, run kernels on it, see where time goes.
//
// Exit status: 0 success; 1 the run failed (an error during simulation, an
// output file or standard output that could not be written, a lost peer
// process, a kernel's prepare or reference that threw); 2 bad input (usage,
// options, config files, CLI11's own parse errors included). `kernbench`
// with no arguments prints the help and exits 0.

#include "kb_version.hpp"
#include "runtime/cli/list_kernels_command.hpp"
#include "runtime/cli/peer_command.hpp"
#include "runtime/cli/phold_command.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/cli/schedule_command.hpp"
#include "runtime/cli/sweep_command.hpp"
#include "runtime/cli/trace_command.hpp"
#include "runtime/host/kernel_calls.hpp"
#include "runtime/report/signal_cleanup.hpp"
#include "runtime/report/atomic_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <utility>

namespace {

/// Standard output that could not be written (a full disk, a closed pipe)
/// is a failure, not a silent loss.
int check_stdout(int exit_code) {
  std::cout.flush();
  errno = 0;
  if (std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout))
    return exit_code;
  // The failed write's errno is gone by now: one more byte finds the reason
  // (the output is lost already).
  std::clearerr(stdout);
  errno = 0;
  std::fputc('\n', stdout);
  std::fflush(stdout);
  const int err = errno;
  fmt::print(stderr, "kernbench: error: cannot write standard output{}{}\n",
             err != 0 ? ": " : "", err != 0 ? std::strerror(err) : "");
  return exit_code == 0 ? 1 : exit_code;
}

} // namespace

int main(int argc, char** argv) {
  // SIGINT, SIGTERM, SIGHUP: temporaries removed, child processes ended.
  kb::signal_cleanup::install();
  CLI::App app{"kernbench: a tiled-NPU simulator", "kernbench"};
  app.require_subcommand(1);
  app.footer("Exit status: 0 success, 1 the run failed, 2 bad input (a usage error included), "
             "3 --verify found a mismatch, 130/143 ended by SIGINT/SIGTERM; each command's "
             "--help says more.");
  app.set_version_flag("--version", fmt::format("kernbench {} ({})", kb::version, kb::git_hash),
                       "print the version and the build's git hash, then exit");
  int exit_code = 0;
  kb::add_run_command(app, exit_code);
  kb::add_phold_command(app, exit_code);
  kb::add_peer_command(app, exit_code);
  kb::add_list_components_command(app, exit_code);
  kb::add_list_kernels_command(app, exit_code);
  kb::add_schedule_command(app, exit_code);
  kb::add_sweep_command(app, exit_code);
  kb::add_trace_command(app, exit_code);
  if (argc <= 1) {
    std::cout << app.help();
    return check_stdout(0);
  }
  // CLI11 says only "A subcommand is required" for an unknown one.
  if (const std::string first = argv[1]; !first.empty() && first[0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : std::as_const(app).get_subcommands(
           std::function<bool(const CLI::App*)>([](const CLI::App*) { return true; }))) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
      found = found || sub->get_name() == first;
    }
    if (!found) {
      fmt::print(stderr, "kernbench: error: unknown command '{}' (the commands: {})\n", first,
                 known);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints its message (or the help or version asked for); its own
    // codes (105, 106, 109, ...) become the README's: 0 for --help and
    // --version, 2 for every other usage error.
    const int code = app.exit(e);
    return check_stdout(code == 0 ? 0 : 2);
  } catch (const kb::output_error& e) {
    fmt::print(stderr, "kernbench: error: {}\n", e.what());
    return 1;
  } catch (const kb::kernel_code_error& e) {
    fmt::print(stderr, "kernbench: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kernbench: error: {}\n", e.what());
    return 2;
  }
  return check_stdout(exit_code);
}
