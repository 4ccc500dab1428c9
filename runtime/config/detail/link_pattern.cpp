#include "runtime/config/detail/link_pattern.hpp"

#include <algorithm>

namespace kb::detail {

namespace {

bool match_from(std::string_view p, std::string_view s,
                std::vector<std::string>& caps) {
  if (p.empty())
    return s.empty();
  if (p.front() != '*') {
    if (s.empty() || s.front() != p.front())
      return false;
    return match_from(p.substr(1), s.substr(1), caps);
  }
  // '*' never crosses a '.'; try the shortest match first.
  const std::size_t limit = std::min(s.find('.'), s.size());
  for (std::size_t n = 0; n <= limit; ++n) {
    caps.emplace_back(s.substr(0, n));
    if (match_from(p.substr(1), s.substr(n), caps))
      return true;
    caps.pop_back();
  }
  return false;
}

} // namespace

bool is_valid_pattern(std::string_view pattern) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = pattern.find('.', start);
    const std::string_view seg = pattern.substr(start, dot - start);
    const bool ok =
        !seg.empty() && std::all_of(seg.begin(), seg.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '*';
        });
    if (!ok)
      return false;
    if (dot == std::string_view::npos)
      return true;
    start = dot + 1;
  }
}

std::size_t star_count(std::string_view pattern) {
  return static_cast<std::size_t>(
      std::count(pattern.begin(), pattern.end(), '*'));
}

std::optional<std::vector<std::string>> match_pattern(std::string_view pattern,
                                                      std::string_view id) {
  std::vector<std::string> caps;
  if (!match_from(pattern, id, caps))
    return std::nullopt;
  return caps;
}

std::string substitute(std::string_view pattern,
                       const std::vector<std::string>& captures) {
  std::string out;
  std::size_t next = 0;
  for (char c : pattern) {
    if (c == '*' && next < captures.size())
      out += captures[next++];
    else
      out += c;
  }
  return out;
}

} // namespace kb::detail
