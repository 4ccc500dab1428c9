#pragma once
// What find_kernel and find_program share: a definition by name, shipped
// or added by a loaded kernel library, or std::invalid_argument listing
// both ("--kernel k: no such kernel (kernbench ships a, b; no --kernel-lib
// adds more)").

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <string>

namespace kb::detail {

/// `Loaded` holds the definition in `def`.
template <class Def, class Loaded>
const Def& find_by_name(const std::string& name, const std::map<std::string, Def>& shipped,
                        const std::map<std::string, Loaded>& loaded, const char* noun) {
  if (auto it = shipped.find(name); it != shipped.end())
    return it->second;
  if (auto it = loaded.find(name); it != loaded.end())
    return it->second.def;
  std::string known;
  for (const auto& [n, d] : shipped)
    known += (known.empty() ? "" : ", ") + n;
  std::string more;
  for (const auto& [n, k] : loaded)
    more += (more.empty() ? "" : ", ") + n;
  throw std::invalid_argument(fmt::format(
    "--{} {}: no such {} (kernbench ships {}; {})", noun, name, noun, known,
    more.empty() ? "no --kernel-lib adds more" : "the --kernel-lib libraries add " + more));
}

} // namespace kb::detail
