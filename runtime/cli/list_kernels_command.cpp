#include "runtime/cli/list_kernels_command.hpp"

#include "kernels/kernel_library.hpp"
#include "kernels/program.hpp"
#include "kernels/registry.hpp"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

namespace kb {

namespace {

/// A kernel's or a program's name, origin, description and arguments.
template <class Def>
void print_kernel(const Def& d, const std::string& origin, const char* what = "") {
  fmt::print("{}{} ({})\n", what, d.name, origin);
  if (!d.description.empty())
    fmt::print("  {}\n", d.description);
  for (const auto& a : d.args) {
    const std::string arg = fmt::format("{}={}", a.name, a.fallback);
    std::string choices;
    for (const auto& c : a.choices)
      choices += (choices.empty() ? " (one of: " : ", ") + c;
    fmt::print("  --arg {:<22} {}{}\n", arg, a.help, choices.empty() ? "" : choices + ")");
  }
}

} // namespace

CLI::App* add_list_kernels_command(CLI::App& app, int& exit_code) {
  auto libs = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand(
    "list-kernels",
    "print every kernel `run --kernel` and every host program `run --program` can run, their "
    "arguments and their defaults");
  cmd->add_option("--kernel-lib", *libs,
                  "also list the kernels of this kernel library (docs/kernels.md); repeatable")
    ->allow_extra_args(false);
  cmd->footer("Example:\n  kernbench list-kernels --kernel-lib build/libmy_kernels.so");
  cmd->callback([libs, &exit_code] {
    for (const auto& path : *libs)
      load_kernel_library(path);
    bool first = true;
    for (const auto& [name, d] : shipped_kernels()) {
      fmt::print("{}", first ? "" : "\n");
      first = false;
      print_kernel(d, "shipped");
    }
    for (const auto& [name, k] : loaded_kernels()) {
      fmt::print("\n");
      print_kernel(k.def, k.library);
    }
    // Host programs (`run --program NAME`), after the kernels they launch.
    for (const auto& [name, d] : shipped_programs()) {
      fmt::print("\n");
      print_kernel(d, "shipped", "program ");
    }
    for (const auto& [name, p] : loaded_programs()) {
      fmt::print("\n");
      print_kernel(p.def, p.library, "program ");
    }
    exit_code = 0;
  });
  return cmd;
}

} // namespace kb
