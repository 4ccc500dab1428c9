#pragma once
// Link endpoint patterns: dotted ids in which '*' stands for any run of
// characters other than '.', e.g. `pe*.pe_dma`.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::detail {

/// True when `pattern` is a valid endpoint: non-empty dot-separated
/// segments of letters, digits, '_' and '*'.
bool is_valid_pattern(std::string_view pattern);

std::size_t star_count(std::string_view pattern);

/// Matches `id` against `pattern`; on success returns what each '*' matched,
/// in order.
std::optional<std::vector<std::string>> match_pattern(std::string_view pattern,
                                                      std::string_view id);

/// Replaces the i-th '*' of `pattern` by `captures[i]`.
std::string substitute(std::string_view pattern,
                       const std::vector<std::string>& captures);

} // namespace kb::detail
