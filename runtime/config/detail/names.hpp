#pragma once
// Which names the config accepts for components, impls and kinds.

#include <algorithm>
#include <string_view>

namespace kb::detail {

/// Letters, digits and '_' only: no '.', which separates id segments, and no
/// '*', which is a link pattern.
inline bool is_plain_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
  });
}

} // namespace kb::detail
