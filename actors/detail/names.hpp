#pragma once
// Where a node sits in the hierarchy, read from its dotted id
// ("sip0.cube0.pe0.pe_dma"): its cube and its parent (the PE of a unit).

#include "runtime/address.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace kb::detail {

/// The first two segments of `node_name` ("sip0.cube0" for
/// "sip0.cube0.pe0.pe_dma"); throws if the name is not inside a cube.
inline std::string cube_of(std::string_view node_name) {
  const auto first = node_name.find('.');
  const auto second =
    first == std::string_view::npos ? first : node_name.find('.', first + 1);
  if (second == std::string_view::npos)
    throw std::runtime_error("node '" + std::string(node_name) +
                             "' is not inside a cube (expected sipS.cubeC.<name>)");
  return std::string(node_name.substr(0, second));
}

/// A cube's numbers, parsed once from "sipS.cubeC" so that the hot path
/// compares integers, not strings.
struct cube_id {
  uint32_t sip = 0;
  uint32_t cube = 0;
  /// Whether address `a` lies in this cube (any memory space).
  bool holds(const global_address& a) const { return a.sip == sip && a.cube == cube; }
};

/// The numbers of the cube named "sipS.cubeC" (as cube_of() returns it).
inline cube_id cube_id_of(std::string_view cube) {
  cube_id c;
  const auto dot = cube.find('.');
  auto number = [&](std::string_view part, std::string_view prefix) {
    if (part.substr(0, prefix.size()) != prefix || part.size() == prefix.size())
      throw std::runtime_error("'" + std::string(cube) + "' is not named sipS.cubeC");
    uint32_t v = 0;
    for (char ch : part.substr(prefix.size())) {
      if (ch < '0' || ch > '9' || v > 0xff)
        throw std::runtime_error("'" + std::string(cube) + "' is not named sipS.cubeC");
      v = v * 10 + static_cast<uint32_t>(ch - '0');
    }
    return v;
  };
  if (dot == std::string_view::npos)
    throw std::runtime_error("'" + std::string(cube) + "' is not named sipS.cubeC");
  c.sip = number(cube.substr(0, dot), "sip");
  c.cube = number(cube.substr(dot + 1), "cube");
  return c;
}

/// `node_name` without its last segment ("sip0.cube0.pe0" for
/// "sip0.cube0.pe0.pe_fetch_store"); throws for a name without a dot.
inline std::string parent_of(std::string_view node_name) {
  const auto last = node_name.rfind('.');
  if (last == std::string_view::npos)
    throw std::runtime_error("node '" + std::string(node_name) +
                             "' has no parent in the hierarchy");
  return std::string(node_name.substr(0, last));
}

/// "hbm", "sram" or "tcm".
inline std::string_view to_string(mem_space s) {
  switch (s) {
  case mem_space::hbm: return "hbm";
  case mem_space::sram: return "sram";
  case mem_space::tcm: return "tcm";
  }
  return "unknown space";
}

/// A global address for error messages: "0x... (hbm of sip0.cube1)".
inline std::string describe_address(uint64_t address) {
  const global_address a = global_address::decode(address);
  if (a.space == mem_space::tcm)
    return fmt::format("{:#x} (tcm of {}.pe{})", address, a.cube_prefix(), a.pe);
  return fmt::format("{:#x} ({} of {})", address, to_string(a.space),
                     a.cube_prefix());
}

} // namespace kb::detail
