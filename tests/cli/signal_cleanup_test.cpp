// SIGINT/SIGTERM end a run without leaving anything of it behind: no
// temporaries (a --trace-stream's grew to 300 MB and stayed), no partial
// outputs, no sweep folder, no running child process (issue 35, item 2).

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace kb {
namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

/// kernbench `args` with TMPDIR=`tmp`, output and errors into `dir`.
pid_t start(const std::vector<std::string>& args, const std::string& dir, const std::string& tmp) {
  std::vector<std::string> all;
  std::vector<char*> argv = test::kernbench_argv(args, all);
  std::vector<std::string> env{"TMPDIR=" + tmp};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("TMPDIR=", 0) != 0)
      env.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const std::string out = dir + "/out", err = dir + "/err";
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // A test run from a script may inherit SIGINT ignored; the run must not.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t dfl;
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGINT);
  sigaddset(&dfl, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &dfl);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  EXPECT_EQ(::posix_spawn(&pid, KB_KERNBENCH_EXE, &fa, &attr, argv.data(), envp.data()), 0);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return pid;
}

/// Waits up to `limit` for `pred`.
template <class F>
bool eventually(F pred, std::chrono::seconds limit) {
  const auto end = clock_type::now() + limit;
  while (clock_type::now() < end) {
    if (pred())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

/// Signals `pid`, reaps it; true if `sig` ended it.
bool ended_by(pid_t pid, int sig) {
  EXPECT_EQ(::kill(pid, sig), 0);
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  return names;
}

TEST(signal_cleanup, a_terminated_run_leaves_no_temporary_and_no_partial_output) {
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string dir = test::temp_dir("signal_run_" + std::to_string(sig));
    const std::string outs = dir + "/outs", tmp = dir + "/tmp";
    fs::create_directories(outs);
    fs::create_directories(tmp);
    const pid_t pid = start({"run", "--M", "1024", "--K", "1024", "--N", "1024", "--repeat", "200",
                             "--quiet", "--trace-stream", outs + "/t.stream", "--json",
                             outs + "/r.json", "--verify", "--oplog", outs + "/ops"},
                            dir, tmp);
    ASSERT_GT(pid, 0);
    // Once the stream's temporary is being written, the run is under way.
    ASSERT_TRUE(eventually(
      [&] {
        for (const auto& n : entries(outs))
          if (n.rfind("t.stream.tmp.", 0) == 0)
            return true;
        return false;
      },
      std::chrono::seconds(60)))
      << "no stream temporary appeared";
    EXPECT_TRUE(ended_by(pid, sig)) << sig;
    EXPECT_EQ(entries(outs), std::vector<std::string>{}) << sig; // nothing at all
    EXPECT_EQ(entries(tmp), std::vector<std::string>{}) << sig;
  }
}

TEST(signal_cleanup, a_terminated_sweep_ends_its_points_and_removes_its_folder) {
  const std::string dir = test::temp_dir("signal_sweep");
  const std::string tmp = dir + "/tmp";
  fs::create_directories(tmp);
  const pid_t pid = start({"sweep", "--param", "M=4096,4097", "--csv", dir + "/s.csv", "--quiet",
                           "--jobs", "2", "--", "--K", "4096", "--N", "4096", "--repeat", "50"},
                          dir, tmp);
  ASSERT_GT(pid, 0);
  std::vector<pid_t> points;
  ASSERT_TRUE(eventually(
    [&] {
      points.clear();
      for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
          continue;
        const std::string stat = test::slurp(e.path().string() + "/stat");
        const auto close = stat.rfind(')');
        if (close != std::string::npos &&
            std::stoi(stat.substr(close + 4)) == pid) // "...) S PPID"
          points.push_back(std::stoi(name));
      }
      return points.size() == 2 && entries(tmp).size() == 1;
    },
    std::chrono::seconds(60)))
    << "the sweep's points and folder did not appear";
  EXPECT_TRUE(ended_by(pid, SIGTERM));
  EXPECT_EQ(entries(tmp), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(dir + "/s.csv"));
  for (pid_t p : points) // ended: gone, or a zombie waiting for its reaper
    EXPECT_TRUE(eventually(
      [&] {
        const std::string stat = test::slurp("/proc/" + std::to_string(p) + "/stat");
        const auto close = stat.rfind(')');
        return stat.empty() || (close != std::string::npos && stat[close + 2] == 'Z');
      },
      std::chrono::seconds(10)))
      << "point process " << p << " still runs";
}

} // namespace
} // namespace kb
