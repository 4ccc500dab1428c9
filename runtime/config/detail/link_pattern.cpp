#include "runtime/config/detail/link_pattern.hpp"

#include <algorithm>

namespace kb::detail {

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
  // Cheap refusals first (a cube's patterns are tried against every node
  // of the cube): '*' never matches a '.', so the dots are the pattern's
  // own, and the text before the first '*' and after the last is literal.
  if (std::count(pattern.begin(), pattern.end(), '.') != std::count(id.begin(), id.end(), '.'))
    return std::nullopt;
  const std::size_t first_star = pattern.find('*'), last_star = pattern.rfind('*');
  if (first_star != std::string_view::npos) {
    const std::string_view head = pattern.substr(0, first_star);
    const std::string_view tail = pattern.substr(last_star + 1);
    if (id.size() < head.size() + tail.size() || !id.starts_with(head) || !id.ends_with(tail))
      return std::nullopt;
  }
  // ok[i][j]: pattern[i..] matches id[j..]. A table, not a backtracking
  // search: a pattern of many '*' against a long id is O(|pattern| x |id|)
  // instead of exponential (a fuzzed topology ran for minutes).
  const std::size_t np = pattern.size(), ns = id.size(), w = ns + 1;
  std::vector<char> ok((np + 1) * w, 0);
  ok[np * w + ns] = 1;
  for (std::size_t i = np; i-- > 0;)
    for (std::size_t j = ns + 1; j-- > 0;) {
      char& cell = ok[i * w + j];
      if (pattern[i] != '*')
        cell = j < ns && id[j] == pattern[i] && ok[(i + 1) * w + j + 1];
      else // '*' matches nothing, or one more character other than '.'
        cell = ok[(i + 1) * w + j] || (j < ns && id[j] != '.' && ok[i * w + j + 1]);
    }
  if (!ok[0])
    return std::nullopt;
  // Each '*' takes the shortest run that lets the rest match (what the
  // earlier left-to-right, shortest-first search found).
  std::vector<std::string> caps;
  std::size_t j = 0;
  for (std::size_t i = 0; i < np; ++i) {
    if (pattern[i] != '*') {
      ++j;
      continue;
    }
    std::size_t n = 0;
    while (!ok[(i + 1) * w + j + n])
      ++n;
    caps.emplace_back(id.substr(j, n));
    j += n;
  }
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
