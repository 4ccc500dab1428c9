#include "runtime/cli/peer_command.hpp"

#include "runtime/cli/host_port.hpp"
#include "runtime/cli/peer_channel.hpp"
#include "runtime/cli/process_group.hpp"
#include "runtime/io/atomic_file.hpp"
#include "runtime/io/signal_cleanup.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace kb {

namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using clock_type = std::chrono::steady_clock;

/// The tail of a part's standard error sent back to the launcher.
constexpr size_t max_message_bytes = 4096;

struct peer_cli {
  std::string listen;
  bool once = false;
  bool quiet = false; ///< local peers of `run --procs`: problems only
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A private directory for one job's files, removed with its contents.
class job_dir {
public:
  job_dir() {
    std::string t = (fs::temp_directory_path() / "kernbench-peer.XXXXXX").string();
    if (!::mkdtemp(t.data()))
      throw std::runtime_error(fmt::format("cannot create a directory for the job: {}",
                                           std::strerror(errno)));
    path_ = t;
    on_signal_ = signal_cleanup::folder(t);
  }
  ~job_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path file(const char* name) const { return path_ / name; }

private:
  fs::path path_;
  signal_cleanup::entry on_signal_;
};

/// One run from one launcher; returns the exit status the peer reports
/// (0: its part handed in its results).
class session {
public:
  session(peer_channel ch, std::string me, bool quiet)
    : ch_(std::move(ch)), me_(std::move(me)), quiet_(quiet) {
    launcher_ = ch_.remote_host();
  }

  int serve() {
    try {
      return serve_checked();
    } catch (const peer_closed& e) {
      return lost(e.what());
    } catch (const std::exception& e) {
      log("run from {} failed: {}", launcher_, e.what());
      return 1;
    }
  }

private:
  template <class... Args>
  void log(fmt::format_string<Args...> f, Args&&... args) {
    fmt::print(stderr, "{}: {}\n", me_, fmt::format(f, std::forward<Args>(args)...));
    std::fflush(stderr);
  }

  /// News that all is well (not for local peers: their launcher speaks).
  template <class... Args>
  void note(fmt::format_string<Args...> f, Args&&... args) {
    if (!quiet_)
      log(f, std::forward<Args>(args)...);
  }

  int refuse(const std::string& why) {
    log("refused a run from {}: {}", launcher_, why);
    try {
      ch_.send(peer_frame::refuse(why));
    } catch (const peer_closed&) {
    }
    return 1;
  }

  int lost(const std::string& why) {
    log("lost the launcher {} ({}); ending this part", launcher_, why);
    if (workers_) {
      workers_->terminate();
      workers_->wait_all();
    }
    return 1;
  }

  /// The next frame that is not a heartbeat, sending our own heartbeats
  /// meanwhile; throws peer_closed if the launcher goes silent.
  peer_frame next_frame(const char* waiting_for) {
    for (;;) {
      if (auto f = ch_.receive(peer_heartbeat)) {
        heard_ = clock_type::now();
        if (f->what != peer_frame::kind::heartbeat)
          return *f;
      }
      beat();
      if (clock_type::now() - heard_ > peer_silence)
        throw peer_closed(fmt::format("no word for {} s while waiting for {}",
                                      peer_silence.count() / 1000, waiting_for));
    }
  }

  void beat() {
    if (clock_type::now() - beat_ >= peer_heartbeat) {
      ch_.send(peer_frame::simple(peer_frame::kind::heartbeat));
      beat_ = clock_type::now();
    }
  }

  int serve_checked() {
    const peer_frame hello = next_frame("hello");
    if (hello.what != peer_frame::kind::hello)
      return refuse(fmt::format("expected hello, got {}", to_string(hello.what)));
    if (!(hello.identity == this_build()))
      return refuse(fmt::format("version mismatch: this peer is {}, the launcher is {}",
                                this_build().text(), hello.identity.text()));
    ch_.send(peer_frame::welcome());
    const peer_frame job = next_frame("the job");
    if (job.what != peer_frame::kind::job)
      return refuse(fmt::format("expected a job, got {}", to_string(job.what)));
    const peer_job& j = job.job;
    if (const uint64_t h = config_hash(j); h != j.config_hash)
      return refuse(fmt::format(
        "configuration mismatch: the job's topology and options hash to "
        "{:016x} here, the launcher says {:016x}", h, j.config_hash));
    if (j.rank == 0 || j.rank >= j.ranks)
      return refuse(fmt::format("rank {} of {}: a peer takes ranks 1 to {}", j.rank, j.ranks,
                                j.ranks - 1));
    job_dir dir;
    write_file_atomically(dir.file("topology.yaml"), "topology", j.topology);
    ch_.send(peer_frame::simple(peer_frame::kind::accepted));

    // The part starts building now, while rank 0 builds its own: it reads
    // rank 0's port from its standard input when it is ready to connect
    // (`--connect HOST:-`). It started only at `go`, after rank 0 had built
    // everything: a split run's set-up took the sum of the two (issue 31).
    std::vector<std::string> args{"run"};
    args.insert(args.end(), j.args.begin(), j.args.end());
    const std::string wire = dir.file("wire").string();
    for (const std::string& a :
         {std::string("--topology"), dir.file("topology.yaml").string(),
          std::string("--procs"), std::to_string(j.ranks), std::string("--rank"),
          std::to_string(j.rank), std::string("--connect"),
          host_port{launcher_, 0}.text_port_later(),
          std::string("--wire-stats"), wire})
      args.push_back(a);
    workers_ = std::make_unique<process_group>(me_, std::chrono::seconds(5), false);
    int port_fd = -1;
    const pid_t part =
      workers_->spawn(j.rank, args, {false, dir.file("stderr").string()}, nullptr, &port_fd);
    note("rank {} of {} for {}; building, and waiting for rank 0 to listen", j.rank, j.ranks,
         launcher_);
    const peer_frame go = next_frame("go");
    if (go.what != peer_frame::kind::go) {
      ::close(port_fd);
      return refuse(fmt::format("expected go, got {}", to_string(go.what)));
    }
    // A part that has already failed has closed its end: its failure is
    // reported below, from its exit status and standard error.
    const std::string port_line = std::to_string(go.port) + "\n";
    [[maybe_unused]] const ssize_t sent =
      ::send(port_fd, port_line.data(), port_line.size(), MSG_NOSIGNAL);
    ::close(port_fd);
    // The part's end wakes this wait at once (its pidfd): rank 0 waits for
    // this peer's word, and a 200 ms poll alone cost a split run up to that.
    const int part_end = workers_->end_fd(part);
    while (!workers_->all_ended()) {
      if (auto f = ch_.receive(milliseconds(part_end >= 0 ? 200 : 20), part_end))
        heard_ = clock_type::now();
      beat();
      if (clock_type::now() - heard_ > peer_silence)
        throw peer_closed(fmt::format("no word for {} s", peer_silence.count() / 1000));
    }
    const std::string failed = workers_->wait_all();
    std::string err = slurp(dir.file("stderr"));
    if (!err.empty())
      fmt::print(stderr, "{}", err);
    peer_done d;
    d.status = failed.empty() ? 0 : 1;
    if (err.size() > max_message_bytes)
      err = "..." + err.substr(err.size() - max_message_bytes);
    d.message = d.status == 0 ? std::string{} : err + failed;
    std::istringstream w(slurp(wire));
    w >> d.wire.msgs >> d.wire.events >> d.wire.bytes;
    peer_frame done = peer_frame::simple(peer_frame::kind::done);
    done.done = d;
    ch_.send(done);
    if (d.status == 0)
      note("rank {} for {} ended (results handed in)", j.rank, launcher_);
    else
      log("rank {} for {} failed", j.rank, launcher_);
    return d.status;
  }

  peer_channel ch_;
  std::string me_;
  bool quiet_ = false;
  std::string launcher_;
  std::unique_ptr<process_group> workers_;
  clock_type::time_point heard_ = clock_type::now();
  clock_type::time_point beat_ = clock_type::now();
};

int serve(const peer_cli& c) {
  const host_port at = parse_host_port(c.listen, "--listen", true);
  std::unique_ptr<peer_listener> listener;
  try {
    listener = std::make_unique<peer_listener>(at);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("--listen {}: {}", c.listen, e.what()));
  }
  const std::string me = fmt::format("kernbench peer {}", listener->bound().text());
  // Started by `run --procs`: end with the launcher however it ends.
  watch_lifeline(me);
  fmt::print("kernbench peer: listening on {}\n", listener->bound().text());
  std::fflush(stdout);
  for (;;) {
    std::optional<peer_channel> ch = listener->accept(std::chrono::seconds(1));
    if (!ch)
      continue;
    const int status = session(std::move(*ch), me, c.quiet).serve();
    if (c.once)
      return status;
  }
}

} // namespace

CLI::App* add_peer_command(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<peer_cli>();
  auto* cmd = app.add_subcommand(
    "peer", "wait for `kernbench run --peers` to hand this process its part of a run, run "
            "it, hand back the results; then wait for the next run (docs/distributed.md)");
  cmd->add_option("--listen", c->listen,
                  "HOST:PORT to listen on (port 0: any free port; the bound address is "
                  "printed on standard output)")
    ->required();
  cmd->add_flag("--once", c->once,
                "exit after one run (status 0 if its part handed in its results, else 1)");
  cmd->add_flag("--quiet", c->quiet, "report problems only (local peers of run --procs)")
    ->group("");
  cmd->footer("Examples:\n"
              "  kernbench peer --listen 10.0.0.2:7001            # on each other host\n"
              "  kernbench run --topology config/scale/4sip_4cube_64pe.yaml --pes all \\\n"
              "      --peers 10.0.0.2:7001,10.0.0.3:7001          # then, on the first");
  cmd->callback([c, &exit_code] { exit_code = serve(*c); });
  return cmd;
}

} // namespace kb
