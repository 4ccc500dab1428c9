#include "runtime/cli/host_port.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <stdexcept>
#include <unistd.h>

namespace kb {

std::string host_port::text() const {
  if (host.find(':') != std::string::npos)
    return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

host_port parse_host_port(const std::string& text, const std::string& option,
                          bool port_zero_ok) {
  const std::string range = port_zero_ok ? "0 to 65535 (0: any free port)" : "1 to 65535";
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format(
      "{} '{}': {}; expected HOST:PORT with a port from {} (e.g. 127.0.0.1:4242)", option,
      text, why, range));
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos)
    throw bad("no port");
  std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string::npos)
    throw bad("an IPv6 address goes in brackets");
  if (host.empty())
    throw bad("no host");
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw bad("the port is not a number");
  const unsigned long p = std::stoul(port);
  if (p > 65535 || (p == 0 && !port_zero_ok))
    throw bad("the port is out of range");
  return {std::move(host), static_cast<uint16_t>(p)};
}

std::vector<host_port> parse_host_ports(const std::string& text, const std::string& option) {
  std::vector<host_port> out;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item =
      text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty())
      throw std::invalid_argument(fmt::format(
        "{} '{}': an empty entry; expected HOST:PORT,HOST:PORT,...", option, text));
    out.push_back(parse_host_port(item, option));
    if (!seen.insert(out.back().text()).second)
      throw std::invalid_argument(
        fmt::format("{} '{}': {} is named twice", option, text, out.back().text()));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return out;
}

std::string host_port::text_port_later() const {
  std::string t = host_port{host, 1}.text();
  t.back() = '-'; // "HOST:1" -> "HOST:-"
  return t;
}

std::optional<std::string> parse_host_port_later(const std::string& text,
                                                 const std::string& option) {
  if (text.size() < 2 || text.compare(text.size() - 2, 2, ":-") != 0)
    return std::nullopt;
  return parse_host_port(text.substr(0, text.size() - 1) + "1", option).host;
}

uint16_t read_port_line(int fd, const std::string& what) {
  std::string line;
  char c = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      throw std::runtime_error(fmt::format("{}: reading the port: {}", what, std::strerror(errno)));
    if (n == 0)
      throw std::runtime_error(fmt::format(
        "{}: the input ended before rank 0's port came (the process that started this rank "
        "ended?)", what));
    if (c == '\n')
      break;
    if (line.size() > 16)
      throw std::runtime_error(fmt::format("{}: '{}...' is not a port", what, line));
    line += c;
  }
  if (line.empty() || line.size() > 5 || line.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(line) == 0 || std::stoul(line) > 65535)
    throw std::runtime_error(fmt::format("{}: '{}' is not a port (1 to 65535)", what, line));
  return static_cast<uint16_t>(std::stoul(line));
}

} // namespace kb
