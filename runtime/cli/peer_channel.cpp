#include "runtime/cli/peer_channel.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace kb {

namespace {

using std::chrono::milliseconds;
using clock_type = std::chrono::steady_clock;

/// Frames larger than this are garbage, not a topology.
constexpr uint32_t max_frame_bytes = 256u << 20;

std::string errno_text(int e) { return std::strerror(e); }

/// Waits for `events` on `fd`; false on timeout.
/// Whether `fd` became ready for `events` within `timeout`; false as soon
/// as `wake_fd` (when given) becomes readable first.
bool wait_fd(int fd, short events, milliseconds timeout, int wake_fd = -1) {
  pollfd p[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
  int rc = 0;
  const auto end = clock_type::now() + timeout;
  do {
    const auto left = std::chrono::duration_cast<milliseconds>(end - clock_type::now());
    rc = ::poll(p, wake_fd >= 0 ? 2 : 1, static_cast<int>(std::max<int64_t>(0, left.count())));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0)
    throw std::runtime_error("poll: " + errno_text(errno));
  return rc > 0 && p[0].revents != 0;
}

struct addr_list {
  addrinfo* head = nullptr;
  ~addr_list() {
    if (head)
      ::freeaddrinfo(head);
  }
};

addr_list resolve(const host_port& at, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addr_list out;
  const std::string port = std::to_string(at.port);
  if (int rc = ::getaddrinfo(at.host.c_str(), port.c_str(), &hints, &out.head); rc != 0)
    throw std::runtime_error(fmt::format("cannot resolve host '{}': {}", at.host, gai_strerror(rc)));
  return out;
}

} // namespace

// -- peer_channel ----------------------------------------------------------------

peer_channel peer_channel::connect(const host_port& to, milliseconds timeout) {
  addr_list addrs = resolve(to, false);
  std::string last = "no address";
  for (addrinfo* a = addrs.head; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                            a->ai_protocol);
    if (fd < 0) {
      last = errno_text(errno);
      continue;
    }
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      if (!wait_fd(fd, POLLOUT, timeout)) {
        ::close(fd);
        last = fmt::format("no answer within {} ms", timeout.count());
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc != 0) {
      last = errno_text(errno);
      ::close(fd);
      continue;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return peer_channel(fd);
  }
  throw std::runtime_error(fmt::format("cannot connect to {}: {}", to.text(), last));
}

peer_channel::peer_channel(int fd) : fd_(fd) {
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // A blocked write (a peer that stopped reading) fails instead of hanging.
  timeval tv{peer_silence.count() / 1000, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

peer_channel::peer_channel(peer_channel&& o) noexcept
  : fd_(std::exchange(o.fd_, -1)), in_(std::move(o.in_)), send_mutex_(std::move(o.send_mutex_)) {}

peer_channel& peer_channel::operator=(peer_channel&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = std::exchange(o.fd_, -1);
    in_ = std::move(o.in_);
    send_mutex_ = std::move(o.send_mutex_);
  }
  return *this;
}

peer_channel::~peer_channel() { close(); }

void peer_channel::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

void peer_channel::send(const peer_frame& f) {
  const std::vector<char> body = encode_frame(f);
  std::vector<char> out(4 + body.size());
  const auto n = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  std::memcpy(out.data() + 4, body.data(), body.size());
  std::lock_guard lock(*send_mutex_);
  size_t done = 0;
  while (done < out.size()) {
    if (fd_ < 0)
      throw peer_closed("the connection is closed");
    const ssize_t w = ::send(fd_, out.data() + done, out.size() - done, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      throw peer_closed(w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
                          ? std::string("the other side stopped reading")
                          : "cannot send: " + errno_text(errno));
    done += static_cast<size_t>(w);
  }
}

std::optional<peer_frame> peer_channel::receive(milliseconds timeout, int wake_fd) {
  const auto end = clock_type::now() + timeout;
  for (;;) {
    if (in_.size() >= 4) {
      uint32_t n = 0;
      for (int i = 0; i < 4; ++i)
        n |= uint32_t{static_cast<unsigned char>(in_[i])} << (8 * i);
      if (n > max_frame_bytes)
        throw std::runtime_error(fmt::format("a frame of {} bytes (more than {}): not a "
                                             "kernbench peer?", n, max_frame_bytes));
      if (in_.size() >= 4 + size_t{n}) {
        peer_frame f = decode_frame(in_.data() + 4, n);
        in_.erase(in_.begin(), in_.begin() + 4 + n);
        return f;
      }
    }
    if (fd_ < 0)
      throw peer_closed("the connection is closed");
    const auto left = std::chrono::duration_cast<milliseconds>(end - clock_type::now());
    if (left.count() < 0 || !wait_fd(fd_, POLLIN, left, wake_fd))
      return std::nullopt;
    char buf[65536];
    const ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0)
      throw peer_closed("the connection closed");
    if (r < 0)
      throw peer_closed("the connection broke: " + errno_text(errno));
    in_.insert(in_.end(), buf, buf + r);
  }
}

std::optional<peer_frame> peer_channel::receive_skipping_heartbeats(milliseconds timeout) {
  const auto end = clock_type::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<milliseconds>(end - clock_type::now());
    auto f = receive(std::max(milliseconds(0), left));
    if (!f || f->what != peer_frame::kind::heartbeat)
      return f;
  }
}

std::string peer_channel::remote_host() const {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&ss), &len) != 0)
    return "127.0.0.1";
  char host[NI_MAXHOST];
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, nullptr, 0,
                    NI_NUMERICHOST) != 0)
    return "127.0.0.1";
  return host;
}

// -- peer_listener ---------------------------------------------------------------

peer_listener::peer_listener(const host_port& at) {
  addr_list addrs = resolve(at, true);
  std::string last = "no address";
  for (addrinfo* a = addrs.head; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = errno_text(errno);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 16) != 0) {
      last = errno_text(errno);
      ::close(fd);
      continue;
    }
    fd_ = fd;
    break;
  }
  if (fd_ < 0)
    throw std::runtime_error(fmt::format("cannot listen on {}: {}", at.text(), last));
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&ss), &len);
  char host[NI_MAXHOST], port[NI_MAXSERV];
  ::getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, port, sizeof port,
                NI_NUMERICHOST | NI_NUMERICSERV);
  bound_ = {host, static_cast<uint16_t>(std::stoul(port))};
}

peer_listener::~peer_listener() {
  if (fd_ >= 0)
    ::close(fd_);
}

std::optional<peer_channel> peer_listener::accept(milliseconds timeout) {
  if (!wait_fd(fd_, POLLIN, timeout))
    return std::nullopt;
  const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED)
      return std::nullopt;
    throw std::runtime_error("accept: " + errno_text(errno));
  }
  return peer_channel(fd);
}

} // namespace kb
