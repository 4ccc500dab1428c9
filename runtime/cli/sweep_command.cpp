#include "runtime/cli/sweep_command.hpp"

#include "runtime/cli/process_group.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/cli/sweep_points.hpp"
#include "runtime/cli/sweep_runner.hpp"
#include "runtime/report/atomic_file.hpp"
#include "runtime/report/csv_row.hpp"
#include "runtime/report/data_stdout.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace kb {

namespace {

struct sweep_cli {
  std::vector<std::string> params;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string csv = "sweep.csv";
  std::string plot;        ///< METRIC:PARAM
  std::string plot_out;    ///< prefix of the PNG and SVG (default: CSV path less .csv)
  std::string plot_script; ///< default: next to the binary, else the source tree's
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

std::string exe_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

/// The plot script: --plot-script, else plot_sweep.py beside the binary (the
/// build copies it there), else in the installation's share/kernbench, else
/// the source tree's scripts/.
std::string find_plot_script(const std::string& given) {
  if (!given.empty()) {
    if (!std::filesystem::is_regular_file(given))
      throw std::invalid_argument(fmt::format("--plot-script {}: no such file", given));
    return given;
  }
  for (const std::string& p :
       {exe_dir() + "/plot_sweep.py", exe_dir() + "/" KB_INSTALLED_SHARE_DIR "/plot_sweep.py",
        std::string(KB_SOURCE_SCRIPTS_DIR) + "/plot_sweep.py"})
    if (std::filesystem::is_regular_file(p))
      return p;
  throw std::invalid_argument(fmt::format(
    "--plot: plot_sweep.py is neither beside the binary ({}) nor in {}; give --plot-script",
    exe_dir(), KB_SOURCE_SCRIPTS_DIR));
}

/// Runs `python3 script csv metric param prefix`; its messages go to our
/// stderr. Returns an error message, empty on success.
std::string run_plot(const std::string& script, const std::string& csv,
                     const std::string& metric, const std::string& param,
                     const std::string& prefix) {
  // Debian's python3 (where python3-matplotlib lives) before any other on
  // PATH; KB_PYTHON overrides.
  std::string python = "python3";
  if (const char* p = std::getenv("KB_PYTHON"); p && *p)
    python = p;
  else if (::access("/usr/bin/python3", X_OK) == 0)
    python = "/usr/bin/python3";
  std::vector<std::string> all{python, script, csv, metric, param, prefix};
  std::vector<char*> argv;
  for (auto& a : all)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (const int rc = ::posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ))
    return fmt::format("--plot: cannot run {}: {} (install python3 and python3-matplotlib)",
                       python, std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return {};
  return fmt::format("--plot: {} {}", script, describe_exit(status));
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

  std::string metric, param, script, prefix;
  if (!c.plot.empty()) {
    const size_t colon = c.plot.find(':');
    metric = c.plot.substr(0, colon);
    param = colon == std::string::npos ? "" : c.plot.substr(colon + 1);
    if (std::find(header.begin(), header.end(), metric) == header.end() ||
        std::find_if(axes.begin(), axes.end(), [&](auto& a) { return a.key == param; }) ==
          axes.end())
      throw std::invalid_argument(fmt::format(
        "--plot {}: expected METRIC:PARAM, METRIC a column (e.g. achieved_flop_per_s, "
        "max_latency_ps, busiest_utilisation_1, events_per_s) and PARAM a swept key",
        c.plot));
    script = find_plot_script(c.plot_script);
    prefix = c.plot_out;
    if (prefix.empty()) {
      prefix = c.csv;
      if (prefix.size() > 4 && prefix.substr(prefix.size() - 4) == ".csv")
        prefix.resize(prefix.size() - 4);
    }
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
    std::cout.flush();
    if (const std::string err = run_plot(script, c.csv, metric, param, prefix); !err.empty()) {
      fmt::print(stderr, "kernbench sweep: {}\n", err);
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
  cmd->add_option("--plot", c->plot,
                  "METRIC:PARAM, e.g. achieved_flop_per_s:M: plot a CSV column against a "
                  "swept parameter (PNG and SVG, python3-matplotlib)");
  cmd->add_option("--plot-out", c->plot_out, "prefix of the plot files (default: --csv less .csv)");
  cmd->add_option("--plot-script", c->plot_script,
                  "the plot script (default: plot_sweep.py beside the binary)");
  cmd->add_flag("--quiet", c->quiet, "no progress lines on standard error");
  cmd->add_option("run_options", c->run_args, "options of every `kernbench run`, after --");
  cmd->footer(
    "Example:\n"
    "  kernbench sweep --param M=256,512,1024 --param cube.pe_template.pe_gemm.mac_rows=16,32 \\\n"
    "      --csv gemm.csv --plot achieved_flop_per_s:M -- --K 512 --N 512\n"
    "  (writes gemm.csv with 6 rows, gemm.png and gemm.svg)\n"
    "  kernbench sweep --param arg.block_m=64,128 --param arg.tile=32,64 --csv k.csv \\\n"
    "      -- --kernel gemm --arg M=512 --arg K=512 --arg N=512\n"
    "Exit status: 0 all points ran (and plotted), 1 a point or the plot failed, 2 bad input.");
  cmd->callback([c, &exit_code] { exit_code = sweep(*c); });
  return cmd;
}

} // namespace kb
