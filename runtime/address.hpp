#pragma once
// Global addresses name their owner so any node can route a request
// (docs/adr/0003-address-encoding.md):
//
//   63..60 space (0 HBM, 1 shared SRAM, 2 TCM)   59..52 SIP   51..44 cube
//   43..36 PE (TCM only)                          35..0  offset (64 GiB)
//
// Plain small numbers are therefore offsets into sip0.cube0's HBM.

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace kb {

enum class mem_space : uint8_t { hbm = 0, sram = 1, tcm = 2 };

struct global_address {
  mem_space space = mem_space::hbm;
  uint32_t sip = 0;
  uint32_t cube = 0;
  uint32_t pe = 0;
  uint64_t offset = 0;

  static constexpr uint64_t max_offset = (uint64_t{1} << 36) - 1;

  static constexpr global_address decode(uint64_t a) {
    return {static_cast<mem_space>(a >> 60), static_cast<uint32_t>((a >> 52) & 0xff),
            static_cast<uint32_t>((a >> 44) & 0xff),
            static_cast<uint32_t>((a >> 36) & 0xff), a & max_offset};
  }
  constexpr uint64_t encode() const {
    return (uint64_t{static_cast<uint8_t>(space)} << 60) | (uint64_t{sip & 0xff} << 52) |
           (uint64_t{cube & 0xff} << 44) | (uint64_t{pe & 0xff} << 36) |
           (offset & max_offset);
  }
  /// "sip0.cube1" — the cube that owns the memory.
  std::string cube_prefix() const {
    return "sip" + std::to_string(sip) + ".cube" + std::to_string(cube);
  }
  friend constexpr bool operator==(const global_address&, const global_address&) = default;
};

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
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%" PRIx64, address);
  if (a.space == mem_space::tcm)
    return std::string(hex) + " (tcm of " + a.cube_prefix() + ".pe" + std::to_string(a.pe) + ")";
  return std::string(hex) + " (" + std::string(to_string(a.space)) + " of " + a.cube_prefix() + ")";
}

} // namespace kb
