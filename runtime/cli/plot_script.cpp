#include "runtime/cli/plot_script.hpp"

#include "runtime/cli/process_group.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kb {

namespace {

std::string exe_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

} // namespace

plot_spec parse_plot_spec(const std::string& text) {
  std::vector<std::string> parts{""};
  for (const char ch : text)
    if (ch == ':')
      parts.emplace_back();
    else
      parts.back() += ch;
  bool empty_part = false;
  for (const auto& p : parts)
    empty_part = empty_part || p.empty();
  if (parts.size() > 3 || empty_part || (parts.size() == 1 && parts[0] != "roofline"))
    throw std::invalid_argument(fmt::format(
      "--plot {}: expected METRIC:PARAM, METRIC:PARAM:SERIES or roofline[:PARAM[:SERIES]] "
      "(e.g. achieved_flop_per_s:M:tile)",
      text));
  plot_spec s{text, parts[0], parts.size() > 1 ? parts[1] : "", parts.size() > 2 ? parts[2] : ""};
  if (!s.series.empty() && s.series == s.param)
    throw std::invalid_argument(
      fmt::format("--plot {}: the series must be another parameter than {}", text, s.param));
  return s;
}

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

plot_outcome run_plot_script(const std::string& script, const std::vector<std::string>& args) {
  std::string python = "python3";
  if (const char* p = std::getenv("KB_PYTHON"); p && *p)
    python = p;
  else if (::access("/usr/bin/python3", X_OK) == 0)
    python = "/usr/bin/python3";
  std::vector<std::string> all{python, script};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush(); // our lines before the script's
  pid_t pid = -1;
  if (const int rc = ::posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ))
    return {-1, fmt::format("cannot run {}: {} (install python3 and python3-matplotlib, or "
                            "name the Python that has matplotlib in KB_PYTHON)",
                            python, std::strerror(rc))};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return {};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1,
          fmt::format("{} {}", script, describe_exit(status))};
}

} // namespace kb
