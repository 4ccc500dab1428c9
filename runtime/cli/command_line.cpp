#include "runtime/cli/command_line.hpp"

#include "kb_version.hpp"
#include "runtime/cli/list_kernels_command.hpp"
#include "runtime/cli/peer_command.hpp"
#include "runtime/cli/phold_command.hpp"
#include "runtime/cli/plot_command.hpp"
#include "runtime/cli/records_command.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/cli/schedule_command.hpp"
#include "runtime/cli/sweep_command.hpp"
#include "runtime/cli/topology_command.hpp"
#include "runtime/cli/trace_command.hpp"
#include "runtime/host/kernel_calls.hpp"
#include "runtime/io/atomic_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <sstream>
#include <utility>

namespace kb {

namespace {

cli_failure error(int exit_code, const std::string& message) {
  return cli_failure(exit_code, message, fmt::format("kernbench: error: {}\n", message));
}

} // namespace

cli_failure::cli_failure(int exit_code, const std::string& message, std::string printed,
                         bool usage)
  : std::runtime_error(message), exit_code_(exit_code), printed_(std::move(printed)),
    usage_(usage) {}

void add_commands(CLI::App& app, int& exit_code) {
  kb::add_run_command(app, exit_code);
  kb::add_phold_command(app, exit_code);
  kb::add_peer_command(app, exit_code);
  kb::add_list_components_command(app, exit_code);
  kb::add_list_kernels_command(app, exit_code);
  kb::add_schedule_command(app, exit_code);
  kb::add_sweep_command(app, exit_code);
  kb::add_plot_command(app, exit_code);
  kb::add_trace_command(app, exit_code);
  kb::add_records_command(app, exit_code);
  kb::add_topology_command(app, exit_code);
}

int run_command_line(const std::vector<std::string>& args) {
  CLI::App app{"kernbench: a tiled-NPU simulator", "kernbench"};
  app.require_subcommand(1);
  app.footer("Exit status: 0 success, 1 the run failed, 2 bad input (a usage error included), "
             "3 --verify found a mismatch, 130/143 ended by SIGINT/SIGTERM; each command's "
             "--help says more.");
  app.set_version_flag("--version", fmt::format("kernbench {} ({})", kb::version, kb::git_hash),
                       "print the version and the build's git hash, then exit");
  int exit_code = 0;
  add_commands(app, exit_code);
  if (args.empty()) {
    std::cout << app.help();
    return 0;
  }
  // CLI11 says only "A subcommand is required" for an unknown one.
  if (const std::string& first = args.front(); !first.empty() && first[0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : std::as_const(app).get_subcommands(
           std::function<bool(const CLI::App*)>([](const CLI::App*) { return true; }))) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
      found = found || sub->get_name() == first;
    }
    if (!found)
      throw error(2, fmt::format("unknown command '{}' (the commands: {})", first, known));
  }
  // As main's argv: CLI11 reads argv[1...].
  std::vector<std::string> owned{"kernbench"};
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : owned)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  try {
    app.parse(static_cast<int>(owned.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the help or version asked for (0) or its message; its
    // own codes (105, 106, 109, ...) become the README's 2.
    std::ostringstream err;
    if (app.exit(e, std::cout, err) == 0)
      return 0;
    throw cli_failure(2, e.what(), err.str(), true);
  } catch (const kb::output_error& e) {
    throw error(1, e.what());
  } catch (const kb::kernel_code_error& e) {
    throw error(1, e.what());
  } catch (const cli_failure&) {
    throw;
  } catch (const std::exception& e) {
    throw error(2, e.what());
  }
  return exit_code;
}

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

} // namespace kb
