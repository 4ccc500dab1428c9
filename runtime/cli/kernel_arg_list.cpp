#include "runtime/cli/kernel_arg_list.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

std::map<std::string, std::string> parse_kernel_args(const std::vector<std::string>& args,
                                                     const std::string& option) {
  std::map<std::string, std::string> out;
  for (const auto& a : args) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(fmt::format("{} {}: expected KEY=VALUE", option, a));
    if (!out.emplace(a.substr(0, eq), a.substr(eq + 1)).second)
      throw std::invalid_argument(
        fmt::format("{} {}: {} is given twice", option, a, a.substr(0, eq)));
  }
  return out;
}

} // namespace kb
