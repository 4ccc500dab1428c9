#include "runtime/cli/records_command.hpp"

#include "runtime/trace/records_csv.hpp"
#include "runtime/trace/trace_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

namespace kb {

namespace {

struct records_cli {
  std::string in, csv;
};

int convert(const records_cli& c) {
  if (is_json_trace_name(c.in))
    throw std::invalid_argument(fmt::format(
      "records convert: '{}' is a Chrome JSON trace; give the Cap'n Proto stream of run "
      "--records (or of run --trace-stream / a Cap'n Proto run --trace)", c.in));
  const trace_reader in(c.in);
  uint64_t rows = 0;
  write_text_file(c.csv, "--csv file",
                  [&](std::ostream& out) { rows = write_records_csv(out, in); });
  if (rows == 0)
    std::cerr << fmt::format("kernbench: note: {} holds no stage (a run with --records "
                             "records every tile's stages)\n", c.in);
  return 0;
}

} // namespace

CLI::App* add_records_command(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<records_cli>();
  auto* cmd = app.add_subcommand("records", "tools for a run's per-tile stage records (convert)");
  cmd->require_subcommand(1);
  auto* conv = cmd->add_subcommand(
    "convert", "write the stages of a run --records stream (or of a trace) as CSV: one row "
               "per tile's stage, in the order the stages ended");
  conv->add_option("IN", c->in, "the --records file (or a Cap'n Proto trace)")->required();
  conv->add_option("--csv", c->csv,
                   "CSV file to write (- for standard output; gzipped when it ends in .gz); "
                   "columns: " + std::string(records_csv_header))
    ->required();
  conv->footer("Example:\n  kernbench run --pes 4 --json run.json --records run.records\n"
               "  kernbench records convert run.records --csv stages.csv");
  conv->callback([c, &exit_code] { exit_code = convert(*c); });
  cmd->footer("Example:\n  kernbench records convert run.records --csv stages.csv");
  return cmd;
}

} // namespace kb
