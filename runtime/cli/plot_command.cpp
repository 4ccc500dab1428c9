#include "runtime/cli/plot_command.hpp"

#include "runtime/cli/plot_script.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace kb {

namespace {

struct plot_cli {
  std::vector<std::string> results;
  std::vector<std::string> plot; ///< specs, checked by the script against the data
  std::vector<std::string> out;
  std::string plot_script;
};

int plot(const plot_cli& c) {
  // What kernbench can say without reading the data; the script checks the
  // columns and parameters (exit 2, naming the file and what it has).
  for (const auto& r : c.results) {
    std::error_code ec;
    if (!std::filesystem::exists(r, ec))
      throw std::invalid_argument(fmt::format("RESULT {}: no such file", r));
    if (!std::filesystem::is_regular_file(r, ec))
      throw std::invalid_argument(
        fmt::format("RESULT {}: not a file (a sweep CSV or a run --json result)", r));
    if (!std::ifstream(r))
      throw std::invalid_argument(fmt::format("RESULT {}: cannot be read", r));
  }
  std::vector<std::string> args = c.results;
  args.insert(args.end(), {"--who", "kernbench plot"});
  for (const auto& p : c.plot)
    args.insert(args.end(), {"--plot", parse_plot_spec(p).text});
  for (const auto& o : c.out) {
    if (o.empty() || o.back() == '/')
      throw std::invalid_argument(
        fmt::format("--out '{}': a file name or prefix, not a directory", o));
    args.insert(args.end(), {"--out", o});
  }
  const plot_outcome p = run_plot_script(find_plot_script(c.plot_script), args);
  if (p.exit_code == 0)
    return 0;
  if (p.exit_code == 2) // bad input; the script said what
    return 2;
  fmt::print(stderr, "kernbench plot: {}\n", p.error);
  return 1;
}

} // namespace

CLI::App* add_plot_command(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<plot_cli>();
  auto* cmd = app.add_subcommand(
    "plot", "figures of results: sweep CSVs and run --json files (PNG, SVG, PDF; "
            "python3-matplotlib)");
  cmd->add_option("RESULT", c->results,
                  "a `sweep --csv` file (its parameters: the columns before status), a "
                  "`run --csv` file or a `run --json` result (one point; its parameters: M, K, "
                  "N, dtype, tile, pes, kernel, arg.NAME and --set keys, where runs differ)")
    ->required();
  cmd->add_option("--plot", c->plot,
                  "METRIC:PARAM, METRIC:PARAM:SERIES or roofline[:PARAM[:SERIES]], repeatable "
                  "(default: achieved_flop_per_s against the first parameter, one line per "
                  "value of the second)")
    ->allow_extra_args(false);
  cmd->add_option("--out", c->out,
                  "a file of each figure, repeatable: .png (300 dpi), .svg or .pdf; another "
                  "name is the prefix of a .png and an .svg (default: the first RESULT less "
                  "its extension); with several --plot each name gets -SPEC before its "
                  "extension")
    ->allow_extra_args(false);
  cmd->add_option("--plot-script", c->plot_script,
                  "the plot script (default: plot_sweep.py beside the binary)");
  cmd->footer(
    "METRIC is a column (achieved_flop_per_s, max_latency_ps, achieved_hbm_bytes_per_s, "
    "flop_utilisation, busiest_utilisation_1, events_per_s, ...) on y, in human units "
    "(TFLOP/s, GB/s, µs, %) with the machine's peak dashed; PARAM a parameter on x; one line "
    "per value of SERIES and per combination of the parameters neither names. roofline: "
    "achieved FLOP/s against FLOP per byte of HBM traffic, under each machine's compute roof "
    "and bandwidth slope. The title says what is plotted, the caption the parameters that "
    "stayed fixed and the machine.\n"
    "Examples:\n"
    "  kernbench plot gemm.csv --plot achieved_flop_per_s:M:tile --out gemm.png --out "
    "gemm.pdf\n"
    "  kernbench run --json a.json --set cube.hbm.bandwidth_gbps=64; kernbench run --json "
    "b.json\n"
    "  kernbench plot a.json b.json --plot roofline --out roof.svg\n"
    "Exit status: 0 plotted, 1 the plot failed (no python3 or matplotlib, a file not "
    "written), 2 bad input.");
  cmd->callback([c, &exit_code] { exit_code = plot(*c); });
  return cmd;
}

} // namespace kb
