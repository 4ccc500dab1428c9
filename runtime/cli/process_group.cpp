#include "runtime/cli/process_group.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kb {

namespace {

/// The fd number the lifeline has in every worker.
constexpr int lifeline_fd = 3;

/// How long a worker may stay stopped (SIGSTOP, a debugger) before the run
/// is ended: the others wait on its promises forever (issue 35). A shell's
/// Ctrl-Z stops the whole group, this process and its monitor with it.
constexpr std::chrono::seconds stop_limit{5};

/// Ends `pid`, stopped or not: a stopped process acts on SIGTERM only once
/// it runs again (a split run's launcher waited on one for minutes).
void end_process(pid_t pid) {
  ::kill(pid, SIGTERM);
  ::kill(pid, SIGCONT);
}

/// The state letter of /proc/PID/stat ('T' stopped, 't' traced); 0 if
/// it cannot be read.
char process_state(pid_t pid) {
  const std::string path = fmt::format("/proc/{}/stat", pid);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0)
    return 0;
  buf[n] = 0;
  // "pid (comm) S ...": comm may hold spaces and parentheses; the state
  // follows the last ')'.
  const char* close = std::strrchr(buf, ')');
  return close && close[1] == ' ' ? close[2] : 0;
}

} // namespace

std::string describe_exit(int status) {
  if (WIFEXITED(status))
    return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  return fmt::format("ended with wait status {}", status);
}

process_group::process_group(std::string who, std::chrono::milliseconds grace, bool watch)
  : who_(std::move(who)), grace_(grace), watch_(watch) {}

process_group::~process_group() {
  stop_monitor();
  for (auto& c : children_)
    if (!c.reaped) {
      end_process(c.pid);
      ::waitpid(c.pid, nullptr, 0);
    }
  for (int fd : lifeline_)
    if (fd >= 0)
      ::close(fd);
  for (auto& c : children_)
    if (c.pidfd >= 0)
      ::close(c.pidfd);
}

int process_group::end_fd(pid_t pid) const {
  std::lock_guard lock(mutex_);
  for (const auto& c : children_)
    if (c.pid == pid)
      return c.pidfd;
  return -1;
}

pid_t process_group::spawn(uint32_t rank, const std::vector<std::string>& args,
                           const worker_output& out, int* pipe_fd, int* stdin_fd) {
  if (lifeline_[0] < 0 && ::pipe2(lifeline_, O_CLOEXEC) != 0)
    throw std::runtime_error(
      fmt::format("cannot start worker process {}: pipe: {}", rank, std::strerror(errno)));
  std::vector<std::string> all{"/proc/self/exe"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string env_fd = fmt::format("KB_LIFELINE_FD={}", lifeline_fd);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "KB_LIFELINE_FD=", 15) != 0)
      envp.push_back(*e);
  envp.push_back(env_fd.data());
  envp.push_back(nullptr);
  // The read end becomes fd 3 of the worker (dup2 clears close-on-exec);
  // the write end stays close-on-exec, so only this process holds it.
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, lifeline_[0], lifeline_fd);
  int so[2] = {-1, -1};
  if (out.stdout_pipe) {
    if (::pipe2(so, O_CLOEXEC) != 0) {
      posix_spawn_file_actions_destroy(&fa);
      throw std::runtime_error(
        fmt::format("cannot start worker process {}: pipe: {}", rank, std::strerror(errno)));
    }
    posix_spawn_file_actions_adddup2(&fa, so[1], 1);
  }
  int si[2] = {-1, -1};
  if (stdin_fd) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, si) != 0) {
      posix_spawn_file_actions_destroy(&fa);
      if (so[0] >= 0) {
        ::close(so[0]);
        ::close(so[1]);
      }
      throw std::runtime_error(fmt::format("cannot start worker process {}: socketpair: {}",
                                           rank, std::strerror(errno)));
    }
    posix_spawn_file_actions_adddup2(&fa, si[1], 0);
  }
  if (!out.stderr_file.empty())
    posix_spawn_file_actions_addopen(&fa, 2, out.stderr_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  // The worker starts with SIGINT ignored, and keeps it so (its
  // signal_cleanup::install leaves an ignored signal alone): a terminal's
  // Ctrl-C reaches the whole job, and rank 0 stops the run for every
  // process (ADR-0030). This process ignores it only for the spawn.
  struct sigaction ignore_int {}, saved_int {};
  ignore_int.sa_handler = SIG_IGN;
  ::sigemptyset(&ignore_int.sa_mask);
  ::sigaction(SIGINT, &ignore_int, &saved_int);
  const int rc = ::posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv.data(), envp.data());
  ::sigaction(SIGINT, &saved_int, nullptr);
  posix_spawn_file_actions_destroy(&fa);
  if (so[1] >= 0)
    ::close(so[1]);
  if (si[1] >= 0)
    ::close(si[1]);
  if (rc != 0) {
    if (so[0] >= 0)
      ::close(so[0]);
    if (si[0] >= 0)
      ::close(si[0]);
    throw std::runtime_error(
      fmt::format("cannot start worker process {}: {}", rank, std::strerror(rc)));
  }
  if (stdin_fd)
    *stdin_fd = si[0];
  if (pipe_fd)
    *pipe_fd = so[0];
  else if (so[0] >= 0)
    ::close(so[0]);
  std::lock_guard lock(mutex_);
  child c;
  c.rank = rank;
  c.pid = pid;
  c.pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  c.on_signal = std::make_shared<signal_cleanup::entry>(signal_cleanup::process(pid));
  children_.push_back(std::move(c));
  if (watch_ && !monitor_.joinable())
    monitor_ = std::thread([this] { monitor(); });
  return pid;
}

bool process_group::all_ended() {
  std::lock_guard lock(mutex_);
  bool ended = true;
  for (auto& c : children_) {
    if (c.reaped)
      continue;
    if (::waitpid(c.pid, &c.status, WNOHANG) == c.pid) {
      c.reaped = true;
      c.on_signal.reset(); // its pid may be reused
    } else {
      ended = false;
    }
  }
  return ended;
}

void process_group::terminate() {
  std::lock_guard lock(mutex_);
  terminate_others(-1);
}

void process_group::terminate_others(pid_t except) {
  for (auto& c : children_)
    if (!c.reaped && c.pid != except)
      end_process(c.pid);
}

bool process_group::stopped_too_long(child& c) {
  const char state = process_state(c.pid);
  if (state != 'T' && state != 't') {
    c.stopped_since.reset();
    return false;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!c.stopped_since)
    c.stopped_since = now;
  if (now - *c.stopped_since < stop_limit)
    return false;
  fmt::print(stderr, "{}: worker process {} (pid {}) has been stopped for {} s (SIGSTOP or a "
                     "debugger); the others wait on it: ending the run\n",
             who_, c.rank, c.pid, stop_limit.count());
  c.reported = true;
  return true;
}

void process_group::monitor() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    for (auto& c : children_) {
      if (c.reaped)
        continue;
      int status = 0;
      if (::waitpid(c.pid, &status, WNOHANG) != c.pid) {
        if (!stopped_too_long(c))
          continue;
        terminate_others(-1); // the stopped one too
      } else {
        c.reaped = true;
        c.on_signal.reset(); // its pid may be reused
        c.status = status;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
          continue;
        // A worker died during the run: the others cannot finish without it.
        fmt::print(stderr, "{}\n", failure(c));
        c.reported = true;
        terminate_others(c.pid);
      }
      // The run usually notices the lost peer and ends with its own error;
      // if it has not within the grace period, end it here.
      if (!cv_.wait_for(lock, grace_, [this] { return stop_; })) {
        fmt::print(stderr, "{}: the run did not end by itself; ending it\n", who_);
        std::fflush(stderr);
        std::_Exit(1);
      }
      return;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
  }
}

void process_group::stop_monitor() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (monitor_.joinable())
    monitor_.join();
}

std::string process_group::failure(const child& c) const {
  return fmt::format("{}: worker process {} (pid {}) {} during the run", who_, c.rank, c.pid,
                     describe_exit(c.status));
}

std::string process_group::wait_all() {
  stop_monitor();
  std::string err;
  for (auto& c : children_) {
    if (!c.reaped) {
      if (::waitpid(c.pid, &c.status, 0) < 0) {
        err += fmt::format("{}: worker process {} (pid {}): waitpid failed: {}\n", who_, c.rank,
                           c.pid, std::strerror(errno));
        continue;
      }
      c.reaped = true;
      c.on_signal.reset(); // its pid may be reused
    }
    if ((!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) && !c.reported)
      err += failure(c) + "\n";
    c.reported = true;
  }
  children_.clear();
  return err;
}

bool watch_lifeline(const std::string& who) {
  const char* env = std::getenv("KB_LIFELINE_FD");
  if (!env || std::atoi(env) != lifeline_fd || ::fcntl(lifeline_fd, F_GETFD) < 0)
    return false;
  ::fcntl(lifeline_fd, F_SETFD, FD_CLOEXEC); // not for this worker's own children
  std::thread([who] {
    char b = 0;
    ssize_t n = 0;
    do
      n = ::read(lifeline_fd, &b, 1);
    while (n < 0 && errno == EINTR);
    // Nobody writes: end-of-file means the parent is gone.
    fmt::print(stderr, "{}: lost the parent process (rank 0); exiting\n", who);
    std::fflush(stderr);
    std::_Exit(1);
  }).detach();
  return true;
}

} // namespace kb
