#include "runtime/cli/process_group.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>

extern char** environ;

namespace kb {

process_group::~process_group() {
  for (auto& [rank, pid] : children_) {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
}

void process_group::spawn(uint32_t rank, const std::vector<std::string>& args) {
  std::vector<std::string> all{"/proc/self/exe"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int rc = ::posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr,
                             argv.data(), environ);
      rc != 0)
    throw std::runtime_error(
      fmt::format("cannot start worker process {}: {}", rank, std::strerror(rc)));
  children_.emplace_back(rank, pid);
}

std::string process_group::wait_all() {
  std::string err;
  for (auto& [rank, pid] : children_) {
    int status = 0;
    if (::waitpid(pid, &status, 0) < 0) {
      err += fmt::format("worker {}: waitpid failed: {}; ", rank, std::strerror(errno));
      continue;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
      err += fmt::format("worker {} exited with status {}; ", rank, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
      err += fmt::format("worker {} was killed by signal {}; ", rank, WTERMSIG(status));
  }
  children_.clear();
  return err;
}

} // namespace kb
