// _kernbench: the native half of `import kernbench` (python/kernbench/
// __init__.py is the other). It runs kernbench command lines in this
// process, through the same kb::run_command_line as the executable, and
// hands back the exit status or the failure; the Python half turns keyword
// arguments into the command line, reads the --json file back and raises
// the failures as exceptions.
//
// Process-wide state it minds: kernbench's signal handlers are never
// installed (Python keeps SIGINT: Ctrl-C asks the run to stop at its next
// safe point, as the CLI's first SIGINT does); config/ is found beside the
// module (installed) or in the source tree, not beside python3; a kernel
// library is loaded once per process (the Python half skips one loaded
// before).

// The engine's headers count on what kb_engine precompiles (its
// CMakeLists); this target, a shared module, does not reuse that header.
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <capnp/message.h>
#include <fmt/format.h>

#include "kb_version.hpp"
#include "kernels/kernel_library.hpp"
#include "runtime/cli/command_line.hpp"
#include "runtime/cli/run_command.hpp"
#include "runtime/cli/run_outputs.hpp"
#include "runtime/cli/sweep_points.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/config/yaml_json.hpp"
#include "runtime/config/yaml_override.hpp"
#include "runtime/report/csv_row.hpp"
#include "runtime/io/json_writer.hpp"
#include "runtime/io/stop_request.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <dlfcn.h>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace py = pybind11;

namespace {

/// What one command line came to: its exit status, and for a failure
/// kernbench's message (what the CLI prints after "kernbench: error: ").
struct outcome {
  int exit_code = 0;
  std::optional<std::string> message;
  std::optional<std::string> err; ///< standard error meanwhile (with tee_stderr)
};

/// Descriptor 1 points at `path` while it lives (the text report), with
/// C's and C++'s buffers flushed on either side.
class stdout_to_file {
public:
  explicit stdout_to_file(const std::string& path) {
    std::cout.flush();
    std::fflush(stdout);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
      throw std::runtime_error("cannot open " + path + " for the text report");
    saved_ = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
    ::dup2(fd, 1);
    ::close(fd);
  }
  ~stdout_to_file() { close(); }
  /// Descriptor 1 back where it was (once).
  void close() {
    if (saved_ < 0)
      return;
    std::cout.flush();
    std::fflush(stdout);
    ::dup2(saved_, 1);
    ::close(saved_);
    saved_ = -1;
  }
  stdout_to_file(const stdout_to_file&) = delete;
  stdout_to_file& operator=(const stdout_to_file&) = delete;

private:
  int saved_ = -1;
};

/// Descriptor 2 through a pipe while it lives: a thread copies what comes
/// to where descriptor 2 went before (the user still sees progress lines)
/// and keeps it, so that a run that fails with a message on standard error
/// (exit 1 without an exception) raises with that message.
class stderr_tee {
public:
  stderr_tee() {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0)
      return;
    std::fflush(stderr);
    std::cerr.flush();
    saved_ = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (saved_ < 0) { // no standard error to copy to: leave it alone
      ::close(ends[0]);
      ::close(ends[1]);
      return;
    }
    ::dup2(ends[1], 2);
    ::close(ends[1]);
    copier_ = std::thread([this, in = ends[0]] {
      char buf[4096];
      for (;;) {
        const ssize_t n = ::read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0)
          break;
        kept_.append(buf, static_cast<size_t>(n));
        for (ssize_t off = 0; off < n;) {
          const ssize_t w = ::write(saved_, buf + off, static_cast<size_t>(n - off));
          if (w <= 0)
            break;
          off += w;
        }
      }
      ::close(in);
    });
  }
  ~stderr_tee() { finish(); }
  stderr_tee(const stderr_tee&) = delete;
  stderr_tee& operator=(const stderr_tee&) = delete;
  /// Descriptor 2 back; what came through it.
  std::string finish() {
    if (saved_ >= 0) {
      std::fflush(stderr);
      std::cerr.flush();
      ::dup2(saved_, 2); // the pipe's last write end closes: the copier ends
      copier_.join();
      ::close(saved_);
      saved_ = -1;
    }
    return kept_;
  }

private:
  int saved_ = -1;
  std::thread copier_;
  std::string kept_;
};

outcome run_args(const std::vector<std::string>& args) {
  try {
    return {kb::run_command_line(args), std::nullopt, std::nullopt};
  } catch (const kb::cli_failure& f) {
    return {f.exit_code(), std::string(f.what()), std::nullopt};
  }
}

/// Runs `args`; with `capture`, descriptor 1 goes to that file meanwhile;
/// with `tee_stderr`, descriptor 2 is kept as well (stderr_tee).
/// With `interruptible` (the main thread), the run goes on a thread of its
/// own while this one looks for Ctrl-C every 50 ms: the first asks the run
/// to stop at its next safe point (the CLI's first SIGINT), and
/// KeyboardInterrupt is raised when it has. Elsewhere the GIL is released
/// for the whole run (other Python threads run theirs beside it).
outcome call(const std::vector<std::string>& args, const std::optional<std::string>& capture,
             const std::optional<std::vector<std::string>>& invocation, bool interruptible,
             bool tee_stderr) {
  kb::stop_request::reset();
  if (invocation)
    kb::set_invocation_command(*invocation);
  std::optional<stdout_to_file> redirect;
  if (capture)
    redirect.emplace(*capture);
  std::optional<stderr_tee> tee;
  if (tee_stderr)
    tee.emplace();
  auto with_err = [&tee](outcome o) {
    if (tee)
      o.err = tee->finish();
    return o;
  };
  if (!interruptible) {
    outcome o;
    {
      py::gil_scoped_release free;
      o = run_args(args);
    }
    return with_err(std::move(o));
  }
  std::packaged_task<outcome()> task([&args] { return run_args(args); });
  std::future<outcome> done = task.get_future();
  std::thread runner(std::move(task));
  PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
  for (;;) {
    {
      py::gil_scoped_release free;
      if (done.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready)
        break;
    }
    if (type == nullptr && PyErr_CheckSignals() != 0) {
      PyErr_Fetch(&type, &value, &trace); // kept until the run has stopped
      kb::stop_request::request(SIGINT);
    }
  }
  runner.join();
  if (type != nullptr) {
    tee.reset();
    redirect.reset();
    kb::stop_request::reset();
    PyErr_Restore(type, value, trace);
    throw py::error_already_set();
  }
  return with_err(done.get());
}

/// Each point of a sweep: its axis values and its `run` arguments, as
/// `kernbench sweep --param ... -- base` makes them (runtime/cli/
/// sweep_points). Bad parameters are a failure, as in the CLI.
py::object sweep_points(const std::vector<std::string>& params,
                        const std::vector<std::string>& base) {
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> points;
  std::vector<std::string> keys;
  try {
    CLI::App scratch;
    int unused = 0;
    const CLI::App* run = kb::add_run_command(scratch, unused);
    std::vector<kb::sweep_axis> axes;
    for (const auto& p : params)
      axes.push_back(kb::parse_axis(p, *run));
    kb::check_point_count(axes);
    kb::check_axes(axes, base);
    for (const auto& a : axes)
      keys.push_back(a.key);
    const size_t n = kb::point_count(axes);
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::string> values = kb::point_values(axes, i);
      std::vector<std::string> args = kb::point_args(axes, values, base);
      points.emplace_back(std::move(values), std::move(args));
    }
  } catch (const std::exception& e) {
    return py::make_tuple(py::none(), e.what());
  }
  return py::make_tuple(py::make_tuple(keys, points), py::none());
}

/// The machine document at `path` (a topology, YAML or JSON, or a result
/// of `run --json`; empty: the default topology) with `sets` (`--set`)
/// applied, as the JSON a result's `machine` is; or (None, message).
py::tuple machine_json(const std::string& path, const std::vector<std::string>& sets) {
  try {
    const std::string file = path.empty() ? kb::default_config_dir() + "/topology.yaml" : path;
    YAML::Node doc = kb::load_topology_document(file);
    for (const auto& o : sets)
      kb::apply_override(doc, kb::parse_override(o));
    kb::json_writer j;
    kb::write_yaml_as_json(j, doc);
    return py::make_tuple(j.str(), py::none());
  } catch (const std::exception& e) {
    return py::make_tuple(py::none(), e.what());
  }
}

/// The libraries `--kernel-lib` loaded in this process, absolute and
/// normalised: a library loads once per process.
std::set<std::string> loaded_kernel_libraries() {
  std::set<std::string> out;
  for (const auto& [name, k] : kb::loaded_kernels())
    out.insert(std::filesystem::absolute(k.library).lexically_normal().string());
  return out;
}

/// The kernel libraries a run loads resolve their kb:: calls against this
/// module, as they do against the executable: its symbols are made global.
/// config/ is the installation's beside the module, else the source tree's.
void settle_in() {
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&settle_in), &self) == 0 || self.dli_fname == nullptr)
    return;
  ::dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  std::error_code ec;
  const auto here = std::filesystem::path(self.dli_fname).parent_path();
  const auto installed = (here / KB_MODULE_INSTALLED_CONFIG_DIR).lexically_normal();
  if (std::filesystem::is_regular_file(installed / "topology.yaml", ec))
    kb::set_default_config_dir(installed.string());
  else
    kb::set_default_config_dir(KB_MODULE_SOURCE_CONFIG_DIR);
}

} // namespace

PYBIND11_MODULE(_kernbench, m) {
  m.doc() = "kernbench's command line, run in this process (use the kernbench package)";
  settle_in();
  m.def(
    "call",
    [](const std::vector<std::string>& args, const std::optional<std::string>& capture,
       const std::optional<std::vector<std::string>>& invocation, bool interruptible,
       bool tee_stderr) {
      const outcome o = call(args, capture, invocation, interruptible, tee_stderr);
      return py::make_tuple(o.exit_code, o.message, o.err);
    },
    py::arg("args"), py::arg("capture") = py::none(), py::arg("invocation") = py::none(),
    py::arg("interruptible") = false, py::arg("tee_stderr") = false,
    "Runs kernbench ARGS... in this process: (exit status, kernbench's message of a failure "
    "or None, standard error or None). capture: a file the text report (descriptor 1) goes "
    "to meanwhile; tee_stderr: keep standard error (still shown).");
  m.def("sweep_points", &sweep_points, py::arg("params"), py::arg("base"),
        "((keys, [(values, run args)]), None) for `sweep --param P... -- BASE...`, or "
        "(None, message)");
  m.def("machine_json", &machine_json, py::arg("path"), py::arg("sets"),
        "(JSON of the machine document at PATH with --set SETS applied, None) or (None, message)");
  py::class_<stdout_to_file>(m, "stdout_redirect",
                             "descriptor 1 into a file until close() (a sweep's text reports)")
    .def("close", [](stdout_to_file& r) { r.close(); });
  m.def(
    "stdout_to", [](const std::string& path) { return std::make_unique<stdout_to_file>(path); },
    py::arg("path"));
  m.def(
    "request_stop", [] { kb::stop_request::request(SIGINT); },
    "asks the runs in flight to stop at their next safe point (as a first SIGINT does)");
  m.def("loaded_kernel_libraries", &loaded_kernel_libraries);
  m.def("run_csv_header", &kb::run_csv_header, "the columns of `run --csv`");
  m.def("default_config_dir", &kb::default_config_dir);
  m.attr("version") = kb::version;
  m.attr("git_hash") = kb::git_hash;
}
