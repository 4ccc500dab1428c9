#include "runtime/cli/sweep_runner.hpp"

#include "runtime/io/signal_cleanup.hpp"

#include "runtime/cli/process_group.hpp"
#include "runtime/report/csv_row.hpp"
#include "runtime/io/signal_cleanup.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kb {

namespace {

using clock_type = std::chrono::steady_clock;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A private directory for the children's files, removed when done.
class temp_dir {
public:
  temp_dir() {
    std::string tmpl =
      (std::filesystem::temp_directory_path() / "kernbench-sweep.XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      throw std::runtime_error(
        fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
    path_ = tmpl;
    on_signal_ = signal_cleanup::folder(path_);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
  signal_cleanup::entry on_signal_;
};

struct running {
  size_t point;
  clock_type::time_point start;
  signal_cleanup::entry on_signal; ///< the point's process ends on SIGINT/SIGTERM
};

pid_t spawn_point(const std::vector<std::string>& args, const std::string& csv,
                  const std::string& err) {
  std::vector<std::string> all{"/proc/self/exe"};
  all.insert(all.end(), args.begin(), args.end());
  all.insert(all.end(), {"--quiet", "--csv", csv});
  std::vector<char*> argv;
  for (auto& a : all)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw std::runtime_error(
      fmt::format("cannot start a kernbench run process: {}", std::strerror(rc)));
  return pid;
}

point_result collect(int status, const std::string& csv, const std::string& err) {
  point_result r;
  const std::string text = slurp(err);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.error = one_line_error(text);
    if (r.error.empty())
      r.error = "kernbench run " + describe_exit(status);
    return r;
  }
  std::istringstream rows(slurp(csv));
  std::string header, row;
  std::getline(rows, header);
  std::getline(rows, row);
  if (csv_split(header) != run_csv_header() || row.empty()) {
    r.error = "kernbench run wrote no summary row";
    return r;
  }
  r.fields = csv_split(row);
  r.ok = true;
  return r;
}

} // namespace

std::string one_line_error(const std::string& err) {
  std::string out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("kernbench: error: ", 0) == 0)
      line.erase(0, 18);
    if (line.empty() || line == "Run with --help for more information.")
      continue;
    out += (out.empty() ? "" : " | ") + line;
  }
  return out;
}

std::vector<point_result> run_points(
  size_t n, const std::function<std::vector<std::string>(size_t)>& args_of, unsigned jobs,
  const std::function<void(size_t, const point_result&)>& on_done) {
  temp_dir dir;
  auto csv_of = [&](size_t i) { return fmt::format("{}/{}.csv", dir.path(), i); };
  auto err_of = [&](size_t i) { return fmt::format("{}/{}.err", dir.path(), i); };
  std::vector<point_result> out(n);
  std::map<pid_t, running> live;
  size_t next = 0;
  try {
    while (next < n || !live.empty()) {
      while (next < n && live.size() < std::max(1u, jobs)) {
        const pid_t pid = spawn_point(args_of(next), csv_of(next), err_of(next));
        live[pid] = {next++, clock_type::now(), signal_cleanup::process(pid)};
      }
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, 0);
      if (pid < 0) {
        if (errno == EINTR)
          continue;
        throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
      }
      auto it = live.find(pid);
      if (it == live.end())
        continue; // not one of ours
      const size_t point = it->second.point;
      const clock_type::time_point start = it->second.start;
      live.erase(it); // releases its signal entry: reaped
      const running r{point, start, {}};
      out[r.point] = collect(status, csv_of(r.point), err_of(r.point));
      out[r.point].wall_s =
        std::chrono::duration<double>(clock_type::now() - r.start).count();
      on_done(r.point, out[r.point]);
    }
  } catch (...) {
    for (const auto& [pid, r] : live) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
    throw;
  }
  return out;
}

} // namespace kb
