#include "runtime/cli/peer_group.hpp"

#include "runtime/engine/cross_process.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <unistd.h>

namespace kb {

namespace {

using std::chrono::milliseconds;
using clock_type = std::chrono::steady_clock;

/// How long a peer may take to answer one step of the set-up.
constexpr milliseconds connect_timeout{5000};

/// Reads the first line a local peer prints ("kernbench peer: listening
/// on 127.0.0.1:PORT") within `timeout`.
std::string first_line(int fd, milliseconds timeout) {
  std::string line;
  const auto end = clock_type::now() + timeout;
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<milliseconds>(end - clock_type::now());
    pollfd p{fd, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc <= 0)
      throw std::runtime_error(
        fmt::format("no listening address within {} s", timeout.count() / 1000));
    char buf[256];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0)
      throw std::runtime_error("it ended before it listened");
    line.append(buf, static_cast<size_t>(n));
  }
  return line.substr(0, line.find('\n'));
}

} // namespace

peer_group::peer_group(std::string who, milliseconds grace)
  : who_(std::move(who)), grace_(grace) {
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(fmt::format("{}: pipe: {}", who_, std::strerror(errno)));
}

peer_group::~peer_group() {
  stop_watching();
  members_.clear(); // closes the connections: remote peers end their parts
  for (int fd : stdout_fds_)
    ::close(fd);
  for (int fd : wake_)
    ::close(fd);
}

void peer_group::stop_watching() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  const char c = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_[1], &c, 1);
  if (watcher_.joinable())
    watcher_.join();
}

void peer_group::add_local(uint32_t count) {
  if (!locals_)
    locals_ = std::make_unique<process_group>(who_, grace_, false);
  for (uint32_t i = 0; i < count; ++i) {
    const auto rank = static_cast<uint32_t>(members_.size()) + 1;
    int fd = -1;
    const pid_t pid =
      locals_->spawn(rank, {"peer", "--listen", "127.0.0.1:0", "--once", "--quiet"}, {true, {}}, &fd);
    std::string line;
    try {
      line = first_line(fd, connect_timeout);
    } catch (const std::exception& e) {
      ::close(fd);
      throw std::runtime_error(
        fmt::format("local peer process {} (pid {}): {}", rank, pid, e.what()));
    }
    // Its standard output stays open (nothing more is written there), so
    // that a late write cannot fail on a closed pipe.
    const std::string prefix = "kernbench peer: listening on ";
    if (line.rfind(prefix, 0) != 0) {
      ::close(fd);
      throw std::runtime_error(fmt::format(
        "local peer process {} (pid {}) said '{}' instead of its address", rank, pid, line));
    }
    member m;
    m.addr = parse_host_port(line.substr(prefix.size()), "local peer");
    m.label = fmt::format("local peer {} (rank {}, pid {})", m.addr.text(), rank, pid);
    m.pid = pid;
    members_.push_back(std::move(m));
    stdout_fds_.push_back(fd);
  }
}

void peer_group::add_remote(const std::vector<host_port>& peers) {
  for (const auto& p : peers) {
    member m;
    m.addr = p;
    m.label = fmt::format("peer {} (rank {})", p.text(), members_.size() + 1);
    members_.push_back(std::move(m));
  }
}

void peer_group::connect_one(member& m, peer_job job) {
  m.ch = std::make_unique<peer_channel>(peer_channel::connect(m.addr, connect_timeout));
  auto answer = [&](const char* step) {
    auto f = m.ch->receive_skipping_heartbeats(connect_timeout);
    if (!f)
      throw std::runtime_error(
        fmt::format("no answer to {} within {} s", step, connect_timeout.count() / 1000));
    if (f->what == peer_frame::kind::refuse)
      throw std::runtime_error("refused the run: " + f->text);
    return *f;
  };
  m.ch->send(peer_frame::hello());
  const peer_frame welcome = answer("hello");
  if (welcome.what != peer_frame::kind::welcome)
    throw std::runtime_error(
      fmt::format("answered hello with {}: not a kernbench peer?", to_string(welcome.what)));
  if (!(welcome.identity == this_build()))
    throw std::runtime_error(fmt::format("version mismatch: this launcher is {}, the peer is {}",
                                         this_build().text(), welcome.identity.text()));
  peer_frame jf = peer_frame::simple(peer_frame::kind::job);
  jf.job = std::move(job);
  m.ch->send(jf);
  const peer_frame ok = answer("the job");
  if (ok.what != peer_frame::kind::accepted)
    throw std::runtime_error(fmt::format("answered the job with {}", to_string(ok.what)));
  m.heard = clock_type::now();
  m.st = state::running;
}

void peer_group::connect(peer_job job) {
  job.ranks = ranks();
  job.config_hash = config_hash(job);
  for (uint32_t i = 0; i < members_.size(); ++i) {
    member& m = members_[i];
    job.rank = i + 1;
    try {
      connect_one(m, job);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: {}", m.label, e.what()));
    }
  }
  watcher_ = std::thread([this] { watch(); });
}

void peer_group::go(uint16_t port) {
  peer_frame f = peer_frame::simple(peer_frame::kind::go);
  f.port = port;
  std::lock_guard lock(mutex_);
  for (auto& m : members_) {
    if (m.st != state::running)
      continue;
    try {
      m.ch->send(f);
    } catch (const std::exception& e) {
      lose(m, e.what());
    }
  }
}

void peer_group::lose(member& m, std::string why) {
  if (m.st != state::running)
    return;
  m.st = state::lost;
  m.why = std::move(why);
  m.lost_nth = ++losses_;
  m.reached_ps = cross_process().reached_ps.load(std::memory_order_relaxed);
  if (!first_loss_)
    first_loss_ = clock_type::now();
  cv_.notify_all();
}

std::vector<const peer_group::member*> peer_group::lost_in_order() const {
  std::vector<const member*> out;
  for (const auto& m : members_)
    if (m.st == state::lost)
      out.push_back(&m);
  std::sort(out.begin(), out.end(),
            [](const member* a, const member* b) { return a->lost_nth < b->lost_nth; });
  return out;
}

std::string peer_group::loss_line(const member& m) const {
  return fmt::format("{}: lost {} at simulated time {} ps (this process had run every event "
                     "before it): {}",
                     who_, m.label, m.reached_ps, m.why);
}

void peer_group::watch() {
  std::unique_lock lock(mutex_);
  auto last_beat = clock_type::now();
  std::vector<pollfd> fds;
  while (!stop_) {
    // Wait, unlocked, for a frame from any peer, a stop, or the next beat:
    // a peer's `done` is read at once (rank 0 waits for it at the end).
    fds.clear();
    for (const auto& m : members_)
      if (m.st == state::running && m.ch)
        fds.push_back({m.ch->fd(), POLLIN, 0});
    fds.push_back({wake_[0], POLLIN, 0});
    lock.unlock();
    if (::poll(fds.data(), fds.size(), 100) > 0 && fds.back().revents != 0) {
      char buf[64];
      while (::read(wake_[0], buf, sizeof buf) > 0) {
      }
    }
    lock.lock();
    if (stop_)
      break;
    const auto now = clock_type::now();
    const bool beat = now - last_beat >= peer_heartbeat;
    if (beat)
      last_beat = now;
    for (auto& m : members_) {
      if (m.st != state::running)
        continue;
      try {
        while (auto f = m.ch->receive(milliseconds(0))) {
          m.heard = now;
          if (f->what == peer_frame::kind::done) {
            m.done = f->done;
            m.st = state::done;
            cv_.notify_all();
            break;
          }
          if (f->what == peer_frame::kind::refuse)
            throw std::runtime_error("it gave up: " + f->text);
        }
        if (m.st == state::running && now - m.heard > peer_silence)
          lose(m, fmt::format("no heartbeat for {} s (the host unreachable, or the process "
                              "stopped)", peer_silence.count() / 1000));
        else if (m.st == state::running && beat)
          m.ch->send(peer_frame::simple(peer_frame::kind::heartbeat));
      } catch (const std::exception& e) {
        lose(m, e.what());
      }
    }
    // The run normally ends by itself once a peer is gone (its shards'
    // connections break); if it has not within the grace period, end it.
    if (first_loss_ && !finishing_ && clock_type::now() - *first_loss_ > grace_) {
      for (const member* m : lost_in_order())
        fmt::print(stderr, "{}\n", loss_line(*m));
      fmt::print(stderr, "{}: the run did not end by itself within {} s of losing a peer; "
                         "ending it (no result files written)\n",
                 who_, grace_.count() / 1000);
      std::fflush(stderr);
      if (locals_) { // leave no local peer behind, dead or alive
        locals_->terminate();
        locals_->wait_all();
      }
      std::_Exit(1);
    }
  }
}

peer_group::outcome peer_group::finish(milliseconds limit) {
  std::unique_lock lock(mutex_);
  finishing_ = true;
  cv_.wait_for(lock, limit, [this] {
    for (const auto& m : members_)
      if (m.st == state::running)
        return false;
    return true;
  });
  for (auto& m : members_)
    if (m.st == state::running)
      lose(m, fmt::format("it did not report within {} s of the end of the run",
                          limit.count() / 1000));
  lock.unlock();
  stop_watching();
  outcome out;
  for (const member* m : lost_in_order())
    out.error += loss_line(*m) + "\n";
  for (const auto& m : members_) {
    if (m.st != state::done)
      continue;
    out.wire += m.done.wire;
    if (m.done.status != 0) {
      std::string msg = m.done.message;
      while (!msg.empty() && msg.back() == '\n')
        msg.pop_back();
      out.error += fmt::format("{}: {}'s part failed (status {}){}{}\n", who_, m.label,
                               m.done.status, msg.empty() ? "" : ":\n  ", msg);
    }
  }
  for (auto& m : members_)
    m.ch.reset();
  if (locals_) {
    if (!out.error.empty())
      locals_->terminate();
    out.error += locals_->wait_all();
  }
  for (int fd : stdout_fds_)
    ::close(fd);
  stdout_fds_.clear();
  return out;
}

} // namespace kb
