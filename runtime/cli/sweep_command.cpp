#include "runtime/cli/sweep_command.hpp"

#include "runtime/cli/plot_script.hpp"
#include "runtime/cli/process_group.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/cli/sweep_points.hpp"
#include "runtime/cli/sweep_runner.hpp"
#include "runtime/io/atomic_file.hpp"
#include "runtime/report/csv_row.hpp"
#include "runtime/io/data_stdout.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>

namespace kb {

namespace {

struct sweep_cli {
  std::vector<std::string> params;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string csv = "sweep.csv";
  std::vector<std::string> plot;     ///< METRIC:PARAM[:SERIES] or roofline[:PARAM[:SERIES]]
  std::vector<std::string> plot_out; ///< files or prefixes (default: CSV path less .csv)
  std::string plot_script;           ///< default: next to the binary, else the source tree's
  bool quiet = false;
  std::vector<std::string> run_args;
};

/// Columns every sweep row has after the parameters.
std::vector<std::string> sweep_header(const std::vector<sweep_axis>& axes) {
  std::vector<std::string> h;
  for (const auto& a : axes)
    h.push_back(a.key);
  h.insert(h.end(), {"status", "error", "process_wall_s"});
  const auto run = run_csv_header();
  h.insert(h.end(), run.begin(), run.end());
  return h;
}

/// The arguments of the plot script for these --plot specs, checked
/// against the sweep's columns and parameters before any point runs.
std::vector<std::string> plot_args(const sweep_cli& c, const std::vector<std::string>& header,
                                   const std::vector<sweep_axis>& axes) {
  std::vector<std::string> keys;
  for (const auto& a : axes)
    keys.push_back(a.key);
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  const auto first_run_column = header.begin() + static_cast<std::ptrdiff_t>(axes.size()) + 3;
  if (c.csv == data_stdout::name)
    throw std::invalid_argument("--plot: needs --csv FILE (the plot reads the CSV back), not "
                                "--csv -");
  std::vector<std::string> args{c.csv, "--who", "kernbench sweep"};
  for (const std::string& text : c.plot) {
    const plot_spec s = parse_plot_spec(text);
    if (!s.roofline() && !has(header, s.metric))
      throw std::invalid_argument(fmt::format(
        "--plot {}: METRIC '{}' is not a column of the sweep's CSV (the columns: "
        "process_wall_s, {})",
        text, s.metric,
        fmt::join(std::vector<std::string>(first_run_column, header.end()), ", ")));
    for (const std::string& key : {s.param, s.series})
      if (!key.empty() && !has(keys, key))
        throw std::invalid_argument(
          fmt::format("--plot {}: '{}' is not a swept parameter (the --param keys: {})", text,
                      key, fmt::join(keys, ", ")));
    args.insert(args.end(), {"--plot", text});
  }
  std::vector<std::string> outs = c.plot_out;
  if (outs.empty()) {
    std::string prefix = c.csv;
    if (prefix.size() > 4 && prefix.substr(prefix.size() - 4) == ".csv")
      prefix.resize(prefix.size() - 4);
    outs.push_back(prefix);
  }
  for (const auto& o : outs)
    args.insert(args.end(), {"--out", o});
  return args;
}

int sweep(const sweep_cli& c) {
  CLI::App scratch;
  int unused = 0;
  const CLI::App* run = add_run_command(scratch, unused);
  std::vector<sweep_axis> axes;
  for (const auto& p : c.params)
    axes.push_back(parse_axis(p, *run));
  check_point_count(axes);
  check_axes(axes, c.run_args);
  if (c.csv == data_stdout::name) // the rows on standard output, the rest on standard error
    data_stdout::claim();
  const std::vector<std::string> header = sweep_header(axes);

  std::string script;
  std::vector<std::string> plot;
  if (!c.plot.empty()) {
    plot = plot_args(c, header, axes);
    script = find_plot_script(c.plot_script);
  }

  const size_t n = point_count(axes);
  if (!c.quiet)
    fmt::print(stderr, "kernbench sweep: {} point(s), {} at a time\n", n, c.jobs);
  size_t done = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto args_of = [&](size_t i) { return point_args(axes, point_values(axes, i), c.run_args); };
  const auto results = run_points(n, args_of, c.jobs, [&](size_t i, const point_result& r) {
    ++done;
    if (!c.quiet)
      fmt::print(stderr, "kernbench sweep: {}/{} {} ({:.2f} s): {}\n", done, n,
                 r.ok ? "ok" : "FAILED", r.wall_s, fmt::join(point_values(axes, i), " "));
  });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::string text = csv_line(header);
  size_t failed = 0;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const point_result& r = results[i];
    std::vector<std::string> row = point_values(axes, i);
    row.insert(row.end(), {r.ok ? "ok" : "failed", r.error, fmt::format("{:.6g}", r.wall_s)});
    std::vector<std::string> fields = r.fields;
    fields.resize(run_csv_header().size());
    row.insert(row.end(), fields.begin(), fields.end());
    text += csv_line(row);
    failed += r.ok ? 0 : 1;
    sum += r.wall_s;
  }
  write_file_atomically(c.csv, "--csv file", text);
  fmt::print("kernbench sweep: {} point(s), {} failed; wrote {}\n", n, failed, c.csv);
  fmt::print("kernbench sweep: wall {:.2f} s for {:.2f} s of point wall time ({:.2f}x) "
             "with {} job(s)\n",
             wall, sum, sum > 0 ? wall / sum : 0.0, c.jobs);
  int status = 0;
  if (failed > 0) {
    fmt::print(stderr,
               "kernbench sweep: {} of {} point(s) failed (their error is in the error "
               "column of {})\n",
               failed, n, c.csv);
    status = 1;
  }
  if (!script.empty()) {
    if (failed == n) {
      fmt::print(stderr, "kernbench sweep: no point succeeded; nothing to plot\n");
      return 1;
    }
    if (const plot_outcome p = run_plot_script(script, plot); p.exit_code != 0) {
      fmt::print(stderr, "kernbench sweep: --plot: {}\n", p.error);
      status = 1;
    }
  }
  return status;
}

} // namespace

CLI::App* add_sweep_command(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<sweep_cli>();
  auto* cmd = app.add_subcommand(
    "sweep", "run `kernbench run` over the cross product of parameters in parallel "
             "processes; one CSV row per point, and a plot");
  cmd->add_option("--param", c->params,
                  "KEY=v1,v2,...: a run option (M=256,512; tile=64x64x64,128x128x128; "
                  "kernel=gemm,softmax), a kernel argument (arg.block_m=64,128: --arg "
                  "block_m=...) or a topology key (cube.pe_template.pe_gemm.mac_rows=32,64); "
                  "repeatable, the points are the cross product")
    ->required()
    ->allow_extra_args(false);
  cmd->add_option("--jobs", c->jobs, "points run at a time (default: the number of cores)")
    ->check(CLI::Range(1, 1024));
  cmd->add_option("--csv", c->csv, "the CSV written (one row per point)")->capture_default_str();
  auto* plot = cmd->add_option(
    "--plot", c->plot,
    "METRIC:PARAM[:SERIES] or roofline[:PARAM[:SERIES]], repeatable: a CSV column against a "
    "swept parameter, one line per value of SERIES (e.g. achieved_flop_per_s:M:tile), or "
    "achieved FLOP/s against FLOP per HBM byte under the machine's roofs (python3-matplotlib; "
    "`kernbench plot --help` says more)")
    ->allow_extra_args(false);
  cmd->add_option("--plot-out", c->plot_out,
                  "a plot file, repeatable: .png (300 dpi), .svg or .pdf; another name is the "
                  "prefix of a .png and an .svg (default: --csv less .csv); with several --plot "
                  "each name gets -SPEC before its extension")
    ->allow_extra_args(false)
    ->needs(plot);
  cmd->add_option("--plot-script", c->plot_script,
                  "the plot script (default: plot_sweep.py beside the binary)")
    ->needs(plot);
  cmd->add_flag("--quiet", c->quiet, "no progress lines on standard error");
  cmd->add_option("run_options", c->run_args, "options of every `kernbench run`, after --");
  cmd->footer(
    "Example:\n"
    "  kernbench sweep --param M=256,512,1024 --param cube.pe_template.pe_gemm.mac_rows=16,32 \\\n"
    "      --csv gemm.csv --plot achieved_flop_per_s:M:cube.pe_template.pe_gemm.mac_rows \\\n"
    "      -- --K 512 --N 512\n"
    "  (writes gemm.csv with 6 rows, gemm.png and gemm.svg: one line per mac_rows)\n"
    "  kernbench sweep --param arg.block_m=64,128 --param arg.tile=32,64 --csv k.csv \\\n"
    "      -- --kernel gemm --arg M=512 --arg K=512 --arg N=512\n"
    "Exit status: 0 all points ran (and plotted), 1 a point or the plot failed, 2 bad input.");
  cmd->callback([c, &exit_code] { exit_code = sweep(*c); });
  return cmd;
}

} // namespace kb
