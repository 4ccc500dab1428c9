#include "runtime/cli/schedule_command.hpp"

#include "runtime/config/config_error.hpp"
#include "runtime/io/atomic_file.hpp"
#include "runtime/schedule/problem_reader.hpp"
#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/schedule_report.hpp"
#include "runtime/schedule/validator.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace kb {

namespace {

struct schedule_args {
  std::string file;
  std::string strategy = "auto";
  std::string json_out;
};

} // namespace

CLI::App* add_schedule_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<schedule_args>();
  auto* cmd = app.add_subcommand(
    "schedule", "modulo-schedule a loop body read from JSON or YAML, and validate the result");
  cmd->add_option("file", args->file, "problem file (JSON or YAML)")->required();
  cmd->add_option("--strategy", args->strategy, "auto | serial | cost")
    ->check(CLI::IsMember({"auto", "serial", "cost"}));
  cmd->add_option("--json", args->json_out, "also write the result as JSON to this file");
  cmd->footer("Example:\n"
              "  kernbench schedule examples/schedule/gemm_mainloop.json --json schedule.json");
  cmd->callback([args, &exit_code] {
    sched::problem p;
    try {
      p = sched::read_problem_file(args->file);
    } catch (const config_error& e) {
      fmt::print(stderr, "kernbench schedule: {}\n", e.what());
      exit_code = 2;
      return;
    } catch (const sched::problem_error& e) {
      fmt::print(stderr, "kernbench schedule: {}\n", e.what());
      exit_code = 2;
      return;
    }
    sched::schedule_options opts;
    opts.requested = *sched::parse_strategy(args->strategy);
    const auto a = sched::generate_schedule(p, opts);
    const auto v = sched::validate_schedule(p, a);
    std::cout << sched::render_text(p, a, v);
    if (!args->json_out.empty()) {
      try {
        write_file_atomically(args->json_out, "--json file", sched::render_json(p, a, v));
      } catch (const output_error& e) {
        fmt::print(stderr, "kernbench schedule: {}\n", e.what());
        exit_code = 1; // a failed output, as for every command
        return;
      }
    }
    exit_code = a.success && v.ok ? 0 : 1;
  });
  return cmd;
}

} // namespace kb
