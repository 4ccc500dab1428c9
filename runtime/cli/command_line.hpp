#pragma once
// The kernbench command line, once: the subcommands, the unknown-command
// message, CLI11's usage errors as exit 2 and exceptions as exit 1 or 2.
// `main` (runtime/cli/main.cpp) and the Python module (python/) both run a
// command line through run_command_line, in this process; they differ only
// in what they do with a failure (main prints "kernbench: error: MESSAGE",
// the module raises it).

#include <CLI/App.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace kb {

/// A command line that failed. `what()` is kernbench's own message: what
/// the CLI prints after "kernbench: error: " (for a usage error CLI11's
/// text, e.g. "The following argument was not expected: --bogus").
class cli_failure : public std::runtime_error {
public:
  /// `printed`: the whole of what the CLI writes on standard error for it;
  /// `usage`: CLI11 found it while parsing.
  cli_failure(int exit_code, const std::string& message, std::string printed, bool usage = false);
  /// 1 the run failed, 2 bad input (usage errors included).
  int exit_code() const { return exit_code_; }
  /// What `kernbench` writes on standard error: "kernbench: error: MESSAGE\n",
  /// or for a usage error CLI11's message and its "Run with --help" line.
  const std::string& printed() const { return printed_; }
  /// A usage error CLI11 found (an unknown option, a missing value, ...).
  bool usage_error() const { return usage_; }

private:
  int exit_code_;
  std::string printed_;
  bool usage_;
};

/// Adds every subcommand to `app`; each sets `exit_code` when it has run.
/// The one list of kernbench's commands.
void add_commands(CLI::App& app, int& exit_code);

/// Runs one kernbench command line (`args` without the program name, e.g.
/// {"run", "--M", "512"}) in this process, as the `kernbench` executable
/// does: its output goes to standard output; no arguments print the help.
/// Returns the command's exit status (0, or what the command itself
/// returns: 1 a sweep point failed, 3 --verify found a mismatch, ...);
/// --help and --version print and return 0. Throws cli_failure for an
/// unknown command, a usage error (2), bad input (2) or a failed run (1).
int run_command_line(const std::vector<std::string>& args);

/// Flushes standard output and returns `exit_code`, or, if it could not be
/// written (a full disk, a closed pipe), says so on standard error
/// ("kernbench: error: cannot write standard output: REASON") and returns
/// 1 in place of a 0: lost output is a failure, never silent.
int check_stdout(int exit_code);

} // namespace kb
