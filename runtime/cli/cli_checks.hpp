#pragma once
// Checks of command-line values that CLI11 does not make itself.

#include <CLI/CLI.hpp>

#include <string>

namespace kb {

/// For an unsigned option: CLI11 reads "-1" into it as its largest value
/// (a seed of -1 ran as 18446744073709551615); a sign is refused instead.
inline CLI::Validator unsigned_value() {
  return CLI::Validator(
    [](std::string& s) -> std::string {
      const auto first = s.find_first_not_of(" \t");
      if (first != std::string::npos && (s[first] == '-' || s[first] == '+'))
        return "Value " + s + " is not a whole number from 0 up (no sign)";
      return {};
    },
    "UINT");
}

} // namespace kb
