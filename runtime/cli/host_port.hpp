#pragma once
// HOST:PORT arguments of the command line (`--connect`, `--listen`,
// `--peers`): parsed once, with errors that name the option.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb {

struct host_port {
  std::string host;
  uint16_t port = 0;
  std::string text() const; ///< "HOST:PORT" ("[::1]:PORT" for IPv6)
  /// "HOST:-": rank 0's host, its port to come on standard input
  /// (`--connect`, read_port_line).
  std::string text_port_later() const;
};

/// The host of "HOST:-" (IPv6 as "[ADDR]:-"), or nothing if `text` does not
/// end in ":-"; throws std::invalid_argument naming `option` for a bad host.
std::optional<std::string> parse_host_port_later(const std::string& text,
                                                 const std::string& option);

/// Parses "HOST:PORT" (IPv6 as "[ADDR]:PORT"). The port is 1..65535, or
/// 0..65535 with `port_zero_ok` (0: any free port). Throws
/// std::invalid_argument naming `option`.
host_port parse_host_port(const std::string& text, const std::string& option,
                          bool port_zero_ok = false);

/// A comma-separated list of HOST:PORT (ports 1..65535), at least one,
/// no duplicates. Throws std::invalid_argument naming `option`.
std::vector<host_port> parse_host_ports(const std::string& text, const std::string& option);

/// Reads one line holding a port (1 to 65535) from file descriptor `fd`,
/// waiting for it; throws std::runtime_error naming `what` when the line is
/// not a port or `fd` ends first.
uint16_t read_port_line(int fd, const std::string& what);

} // namespace kb
