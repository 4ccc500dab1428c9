#pragma once
// The control connection of a multi-process run: a TCP stream of
// length-prefixed peer frames (peer_protocol.hpp). Every wait has a
// timeout; writes never raise SIGPIPE.

#include "runtime/cli/host_port.hpp"
#include "runtime/cli/peer_protocol.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

namespace kb {

/// The other side closed the connection (or it broke).
struct peer_closed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class peer_channel {
public:
  /// Connects within `timeout`; throws std::runtime_error with the reason
  /// ("connection refused", "no answer within 5 s", an unknown host).
  static peer_channel connect(const host_port& to, std::chrono::milliseconds timeout);

  explicit peer_channel(int fd);
  peer_channel(peer_channel&& o) noexcept;
  peer_channel& operator=(peer_channel&& o) noexcept;
  peer_channel(const peer_channel&) = delete;
  peer_channel& operator=(const peer_channel&) = delete;
  ~peer_channel();

  /// Sends one frame (thread-safe against other sends); throws peer_closed.
  void send(const peer_frame& f);
  /// The next frame, or nothing if none came within `timeout` (or, given
  /// `wake_fd`, once that becomes readable first: a worker's pidfd, say).
  /// Throws peer_closed when the connection ends, std::runtime_error on
  /// garbage.
  std::optional<peer_frame> receive(std::chrono::milliseconds timeout, int wake_fd = -1);
  /// Receives, skipping heartbeats, until a frame of another kind comes or
  /// `timeout` passes (nothing then).
  std::optional<peer_frame> receive_skipping_heartbeats(std::chrono::milliseconds timeout);

  /// The address of the other side (numeric).
  std::string remote_host() const;
  int fd() const { return fd_; }
  void close();

private:
  int fd_ = -1;
  std::vector<char> in_; // bytes received, not yet a whole frame
  std::unique_ptr<std::mutex> send_mutex_ = std::make_unique<std::mutex>();
};

class peer_listener {
public:
  /// Binds and listens on `at` (port 0: any free port); throws
  /// std::runtime_error naming the address.
  explicit peer_listener(const host_port& at);
  peer_listener(const peer_listener&) = delete;
  peer_listener& operator=(const peer_listener&) = delete;
  ~peer_listener();
  /// The address actually bound (the port chosen for port 0).
  host_port bound() const { return bound_; }
  /// The next connection, or nothing within `timeout`.
  std::optional<peer_channel> accept(std::chrono::milliseconds timeout);

private:
  int fd_ = -1;
  host_port bound_;
};

} // namespace kb
