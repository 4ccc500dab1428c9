// `kernbench peer` and `kernbench run --peers` (issue 13): bad addresses
// and unreachable peers are named, a version or configuration mismatch is
// refused before anything runs, and a peer lost mid-run ends the run
// within 10 s naming the peer and the simulated time reached. (Identical
// results of a multi-host run on loopback: tests/cli/results_unchanged.sh.)

#include "runtime/cli/peer_channel.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace kb {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Starts `kernbench args...` with standard output to a pipe (or to
/// /dev/null) and standard error to `err`; returns its pid.
pid_t spawn(const std::vector<std::string>& args, const std::string& err, int* out_fd) {
  std::vector<std::string> all;
  std::vector<char*> argv = test::kernbench_argv(args, all);
  int p[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (out_fd) {
    EXPECT_EQ(::pipe2(p, O_CLOEXEC), 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
  } else {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  EXPECT_EQ(::posix_spawn(&pid, KB_KERNBENCH_EXE, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  if (out_fd) {
    ::close(p[1]);
    *out_fd = p[0];
  }
  return pid;
}

/// Waits for `pid` up to `limit`; its wait status, or nothing.
std::optional<int> wait_for(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = clock_type::now() + limit;
  while (clock_type::now() < end) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return status;
    std::this_thread::sleep_for(20ms);
  }
  return std::nullopt;
}

/// A `kernbench peer --listen HOST:0 --once`, killed at the end of the test.
struct peer_process {
  pid_t pid = -1;
  int out = -1;
  host_port addr;
  std::string err_path;

  peer_process(const std::string& host, const std::string& name) {
    err_path = test::temp_dir(name) + "/err";
    pid = spawn({"peer", "--listen", host + ":0", "--once"}, err_path, &out);
    std::string line;
    const auto end = clock_type::now() + 10s;
    while (line.find('\n') == std::string::npos && clock_type::now() < end) {
      pollfd p{out, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0)
        continue;
      char buf[128];
      const ssize_t n = ::read(out, buf, sizeof buf);
      if (n <= 0)
        break;
      line.append(buf, static_cast<size_t>(n));
    }
    const std::string prefix = "kernbench peer: listening on ";
    EXPECT_EQ(line.rfind(prefix, 0), 0u) << line;
    if (line.rfind(prefix, 0) == 0)
      addr = parse_host_port(line.substr(prefix.size(), line.find('\n') - prefix.size()), "test");
  }
  ~peer_process() {
    if (pid > 0 && !wait_for(pid, 0ms)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    ::close(out);
  }
  /// Exit status once it ended by itself (within `limit`).
  std::optional<int> ended(std::chrono::milliseconds limit) {
    auto s = wait_for(pid, limit);
    if (s)
      pid = -1;
    return s;
  }
};

/// A port nothing listens on (bound, then released).
uint16_t closed_port() {
  peer_listener l({"127.0.0.1", 0});
  return l.bound().port;
}

const std::string k_machine =
  std::string(KB_SOURCE_DIR_FOR_TESTS) + "/config/scale/2sip_2cube_4pe.yaml";

// A kernel run over two peers on 127.0.0.2 and 127.0.0.3 writes the op log
// of a run in one process, and verifies (issue 13).
TEST(peers, a_kernel_run_over_two_peers_writes_the_one_process_op_log) {
  const std::string dir = test::temp_dir("peers_kernel");
  const std::string base =
    "run --topology " + k_machine + " --kernel gemm --arg M=256 --arg K=128 --arg N=192 --verify";
  const auto one = test::run_kernbench(base + " --oplog " + dir + "/one.oplog");
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  peer_process a{"127.0.0.2", "peers_kernel_a"}, b{"127.0.0.3", "peers_kernel_b"};
  const auto r = test::run_kernbench(base + " --oplog " + dir + "/peers.oplog --peers " +
                                     a.addr.text() + "," + b.addr.text());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(test::slurp(dir + "/peers.oplog"), test::slurp(dir + "/one.oplog"));
  EXPECT_NE(r.out.find("\nverdict: PASS\n"), std::string::npos) << r.out;
}

TEST(peers, a_bad_peer_address_names_the_option) {
  const auto r = test::run_kernbench("run --peers 127.0.0.1:4000,localhost");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --peers 'localhost': no port; expected HOST:PORT with a "
                   "port from 1 to 65535 (e.g. 127.0.0.1:4242)\n");
  const auto twice = test::run_kernbench("run --peers 127.0.0.1:4000,127.0.0.1:4000");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "kernbench: error: --peers '127.0.0.1:4000,127.0.0.1:4000': "
                       "127.0.0.1:4000 is named twice\n");
  const auto both = test::run_kernbench("run --procs 2 --peers 127.0.0.1:4000");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--procs 2 with --peers: give one or the other"), std::string::npos)
    << both.err;
  const auto listen = test::run_kernbench("peer --listen 127.0.0.1");
  EXPECT_EQ(listen.exit_code, 2);
  EXPECT_EQ(listen.err.rfind("kernbench: error: --listen '127.0.0.1': no port; expected "
                             "HOST:PORT with a port from 0 to 65535 (0: any free port)", 0),
            0u)
    << listen.err;
}

TEST(peers, an_unreachable_peer_is_named) {
  const uint16_t port = closed_port();
  const auto t0 = clock_type::now();
  const auto r = test::run_kernbench(fmt::format("run --topology {} --pes all --peers 127.0.0.1:{}",
                                                 k_machine, port));
  EXPECT_LT(clock_type::now() - t0, 10s);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, fmt::format("kernbench: error: --peers: peer 127.0.0.1:{0} (rank 1): cannot "
                               "connect to 127.0.0.1:{0}: Connection refused\n",
                               port));
}

TEST(peers, a_peer_refuses_a_launcher_of_another_version) {
  peer_process peer("127.0.0.1", "refuses_version");
  peer_channel ch = peer_channel::connect(peer.addr, 5s);
  peer_frame hello = peer_frame::hello();
  hello.identity.version = "0.0.0-other";
  ch.send(hello);
  const auto answer = ch.receive_skipping_heartbeats(5s);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->what, peer_frame::kind::refuse);
  EXPECT_EQ(answer->text,
            fmt::format("version mismatch: this peer is {}, the launcher is kernbench "
                        "0.0.0-other ({}), peer protocol {}",
                        this_build().text(), this_build().git_hash, peer_protocol_version));
  const auto status = peer.ended(5s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(WEXITSTATUS(*status), 1); // --once: the one run failed
  EXPECT_NE(slurp(peer.err_path).find("refused a run from 127.0.0.1: version mismatch"),
            std::string::npos);
}

TEST(peers, a_peer_refuses_a_job_whose_configuration_does_not_match) {
  peer_process peer("127.0.0.1", "refuses_config");
  peer_channel ch = peer_channel::connect(peer.addr, 5s);
  ch.send(peer_frame::hello());
  const auto welcome = ch.receive_skipping_heartbeats(5s);
  ASSERT_TRUE(welcome.has_value());
  EXPECT_EQ(welcome->what, peer_frame::kind::welcome);
  EXPECT_EQ(welcome->identity, this_build());
  peer_frame job = peer_frame::simple(peer_frame::kind::job);
  job.job = {1, 2, "sips: 1\n", {"--pes", "all"}, 0};
  job.job.config_hash = config_hash(job.job) ^ 1; // what a launcher of other files would say
  ch.send(job);
  const auto answer = ch.receive_skipping_heartbeats(5s);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->what, peer_frame::kind::refuse);
  EXPECT_EQ(answer->text.rfind("configuration mismatch: the job's topology and options hash "
                               "to ", 0),
            0u)
    << answer->text;
}

TEST(peers, a_launcher_refuses_a_peer_of_another_version) {
  // A fake peer that answers with another build's identity.
  peer_listener fake({"127.0.0.1", 0});
  std::thread t([&] {
    auto ch = fake.accept(10s);
    if (!ch)
      return;
    if (auto hello = ch->receive(5s)) {
      peer_frame w = peer_frame::welcome();
      w.identity.git_hash = "0123abc";
      ch->send(w);
    }
    try {
      (void)ch->receive(5s); // until the launcher hangs up
    } catch (const peer_closed&) {
    }
  });
  const auto r = test::run_kernbench(
    fmt::format("run --topology {} --pes all --peers {}", k_machine, fake.bound().text()));
  t.join();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, fmt::format("kernbench: error: --peers: peer {} (rank 1): version mismatch: "
                               "this launcher is {}, the peer is kernbench {} (0123abc), peer "
                               "protocol {}\n",
                               fake.bound().text(), this_build().text(), this_build().version,
                               peer_protocol_version));
}

/// A long run over this process and two peers on 127.0.0.2 and 127.0.0.3
/// (a multi-host run emulated on loopback addresses).
struct peers_run {
  peer_process a{"127.0.0.2", "peers_run_a"}, b{"127.0.0.3", "peers_run_b"};
  std::string json, err_path;
  pid_t launcher = -1;

  explicit peers_run(const std::string& name) {
    const std::string dir = test::temp_dir(name);
    json = dir + "/result.json";
    err_path = dir + "/err";
    launcher = spawn({"run", "--quiet", "--topology", k_machine, "--pes", "all", "--repeat", "40",
                      "--peers", a.addr.text() + "," + b.addr.text(), "--json", json},
                     err_path, nullptr);
    std::this_thread::sleep_for(3s); // let the run get going
  }
  ~peers_run() {
    if (launcher > 0 && !wait_for(launcher, 0ms)) {
      ::kill(launcher, SIGKILL);
      ::waitpid(launcher, nullptr, 0);
    }
  }
  /// The launcher's exit status within 10 s of `t0`, and how long it took.
  std::optional<int> launcher_ends(clock_type::time_point t0) {
    auto s = wait_for(launcher, 10s);
    EXPECT_TRUE(s.has_value()) << "the launcher still runs 10 s after losing a peer";
    EXPECT_LT(clock_type::now() - t0, 10s);
    if (s)
      launcher = -1;
    return s;
  }
};

/// The pids of the children of `parent`.
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  std::ifstream in(fmt::format("/proc/{0}/task/{0}/children", parent));
  pid_t p = 0;
  while (in >> p)
    out.push_back(p);
  return out;
}

TEST(peer_loss, a_killed_peer_ends_the_run_everywhere_within_10_s) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  peers_run r("peers_killed");
  ASSERT_GT(r.launcher, 0);
  ASSERT_EQ(wait_for(r.launcher, 0ms), std::nullopt) << slurp(r.err_path);
  ASSERT_EQ(::kill(r.b.pid, SIGKILL), 0);
  const auto t0 = clock_type::now();
  const auto status = r.launcher_ends(t0);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 1);
  const std::string err = slurp(r.err_path);
  const std::string first = err.substr(0, err.find('\n'));
  EXPECT_EQ(first.rfind(fmt::format("kernbench run: lost peer {} (rank 2) at simulated time ",
                                    r.b.addr.text()), 0),
            0u)
    << err;
  EXPECT_NE(first.find(" ps "), std::string::npos) << err;
  EXPECT_EQ(::access(r.json.c_str(), F_OK), -1) << "a result file appeared";
  // The other peer's part ends too, and (--once) so does the peer: status 1
  // if its part was cut off, 0 if it had finished and handed its results to
  // rank 0 before rank 0 gave up (its cubes need nothing from the others).
  const auto other = r.a.ended(10s);
  ASSERT_TRUE(other.has_value()) << "the other peer still runs";
  EXPECT_TRUE(WIFEXITED(*other));
  EXPECT_LE(WEXITSTATUS(*other), 1);
}

TEST(peer_loss, an_unreachable_peer_ends_the_run_within_10_s) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  peers_run r("peers_stopped");
  ASSERT_GT(r.launcher, 0);
  ASSERT_EQ(wait_for(r.launcher, 0ms), std::nullopt) << slurp(r.err_path);
  // Stopped, the peer and its part neither answer nor close a connection:
  // what a host that drops off the network looks like.
  std::vector<pid_t> stopped = children_of(r.b.pid);
  stopped.push_back(r.b.pid);
  for (pid_t p : stopped)
    ASSERT_EQ(::kill(p, SIGSTOP), 0);
  const auto t0 = clock_type::now();
  const auto status = r.launcher_ends(t0);
  for (pid_t p : stopped) {
    ::kill(p, SIGKILL);
    ::kill(p, SIGCONT);
  }
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(WEXITSTATUS(*status), 1);
  const std::string err = slurp(r.err_path);
  EXPECT_EQ(err.rfind(fmt::format("kernbench run: lost peer {} (rank 2) at simulated time ",
                                  r.b.addr.text()), 0),
            0u)
    << err;
  EXPECT_NE(err.find("no heartbeat for 5 s"), std::string::npos) << err;
  EXPECT_EQ(::access(r.json.c_str(), F_OK), -1) << "a result file appeared";
}

TEST(peer_loss, when_the_launcher_dies_every_peer_ends_its_part_within_10_s) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  peers_run r("launcher_dies");
  ASSERT_GT(r.launcher, 0);
  ASSERT_EQ(wait_for(r.launcher, 0ms), std::nullopt) << slurp(r.err_path);
  const std::vector<pid_t> parts = children_of(r.a.pid);
  ASSERT_EQ(::kill(r.launcher, SIGKILL), 0);
  ASSERT_TRUE(wait_for(r.launcher, 5s).has_value());
  r.launcher = -1;
  const auto t0 = clock_type::now();
  for (peer_process* p : {&r.a, &r.b}) {
    const auto status = p->ended(10s);
    ASSERT_TRUE(status.has_value()) << "a peer still runs 10 s after its launcher died";
    EXPECT_EQ(WEXITSTATUS(*status), 1);
    EXPECT_NE(slurp(p->err_path).find(": lost the launcher 127.0.0.1 ("), std::string::npos)
      << slurp(p->err_path);
  }
  EXPECT_LT(clock_type::now() - t0, 10s);
  for (pid_t part : parts) // the parts it ran ended with it (reaped by the peer)
    EXPECT_EQ(::kill(part, 0), -1) << "part " << part << " still runs";
}

} // namespace
} // namespace kb
