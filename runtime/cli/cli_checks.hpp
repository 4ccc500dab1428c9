#pragma once
// Checks of command-line values that CLI11 does not make itself.

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

namespace kb {

/// For an unsigned option: CLI11 reads "-1" into it as its largest value
/// (a seed of -1 ran as 18446744073709551615); a sign is refused instead,
/// and so is a number beyond 2^64 - 1 (it was saturated to it).
inline CLI::Validator unsigned_value() {
  return CLI::Validator(
    [](std::string& s) -> std::string {
      const auto first = s.find_first_not_of(" \t");
      if (first != std::string::npos && (s[first] == '-' || s[first] == '+'))
        return "Value " + s + " is not a whole number from 0 up (no sign)";
      // Beyond 2^64 - 1 the conversion would saturate silently (issue 67).
      const auto last = s.find_last_not_of(" \t");
      uint64_t v = 0;
      if (first != std::string::npos &&
          std::from_chars(s.data() + first, s.data() + last + 1, v).ec ==
            std::errc::result_out_of_range)
        return "Value " + s + " is beyond the largest it takes, 18446744073709551615 (2^64 - 1)";
      return {};
    },
    "UINT");
}

} // namespace kb
