#include "runtime/host/placement.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

namespace kb {

namespace {

constexpr uint64_t page = 4096;
constexpr uint64_t pe_boundary = uint64_t{1} << 20;

struct named_placement {
  placement p;
  const char* name;
};
constexpr std::array<named_placement, 5> placements{{{placement::local, "local"},
                                                     {placement::remote_cube, "remote-cube"},
                                                     {placement::remote_sip, "remote-sip"},
                                                     {placement::sram, "sram"},
                                                     {placement::interleaved, "interleaved"}}};

std::string memory_name(uint64_t key) {
  const global_address a = global_address::decode(key);
  const char* space = a.space == mem_space::hbm ? "hbm" : a.space == mem_space::sram ? "sram" : "tcm";
  if (a.space == mem_space::tcm)
    return fmt::format("{}.pe{} tcm", a.cube_prefix(), a.pe);
  return fmt::format("{} {}", a.cube_prefix(), space);
}

uint64_t key_of(global_address a) {
  a.offset = 0;
  if (a.space != mem_space::tcm)
    a.pe = 0;
  return a.encode();
}

} // namespace

std::optional<placement> parse_placement(std::string_view name) {
  for (const auto& p : placements)
    if (name == p.name)
      return p.p;
  return std::nullopt;
}

const char* to_string(placement p) {
  for (const auto& x : placements)
    if (x.p == p)
      return x.name;
  return "unknown";
}

void host_memory_map::reserve(uint64_t address, uint64_t bytes, uint64_t align,
                              const std::string& what) {
  const global_address a = global_address::decode(address);
  const uint64_t key = key_of(a);
  if (align == 0 || a.offset % align != 0)
    throw std::invalid_argument(fmt::format("{}: offset {:#x} in {} is not aligned to {} bytes",
                                            what, a.offset, memory_name(key), align));
  if (bytes > global_address::max_offset + 1 - a.offset)
    throw std::invalid_argument(fmt::format(
      "{}: {} bytes at offset {:#x} run past the end of {} (64 GiB of offsets, ADR-0003)", what,
      bytes, a.offset, memory_name(key)));
  auto& m = regions_[key];
  const uint64_t end = a.offset + bytes;
  auto next = m.lower_bound(a.offset);
  if (next != m.end() && next->first < end)
    throw std::invalid_argument(fmt::format("{}: [{:#x}, {:#x}) in {} overlaps {} at {:#x}", what,
                                            a.offset, end, memory_name(key), next->second.what,
                                            next->first));
  if (next != m.begin()) {
    auto prev = std::prev(next);
    if (prev->second.end > a.offset)
      throw std::invalid_argument(fmt::format("{}: [{:#x}, {:#x}) in {} overlaps {} at {:#x}",
                                              what, a.offset, end, memory_name(key),
                                              prev->second.what, prev->first));
  }
  m.emplace(a.offset, region{end, what});
}

uint64_t host_memory_map::allocate(global_address memory, uint64_t bytes, uint64_t align,
                                   const std::string& what) {
  const uint64_t key = key_of(memory);
  const auto& m = regions_[key];
  const uint64_t used = m.empty() ? 0 : m.rbegin()->second.end;
  const uint64_t offset = (used + align - 1) / align * align;
  if (offset > global_address::max_offset)
    throw std::invalid_argument(fmt::format(
      "{}: {} is full (64 GiB of offsets, ADR-0003)", what, memory_name(key)));
  memory.offset = offset;
  const uint64_t address = memory.encode();
  reserve(address, bytes, align, what);
  return address;
}

std::vector<operand_addresses> place_operands(const std::vector<pe_site>& pes,
                                              const operand_sizes& sizes, placement how,
                                              uint32_t sips, uint32_t cubes) {
  if (how == placement::remote_cube && cubes < 2)
    throw std::invalid_argument(
      "--placement remote-cube: the machine has one cube per SIP (no neighbour to read from)");
  if (how == placement::remote_sip && sips < 2)
    throw std::invalid_argument(
      "--placement remote-sip: the machine has one SIP (no other SIP to read from)");
  if (how == placement::interleaved && cubes < 2)
    throw std::invalid_argument(
      "--placement interleaved: the machine has one cube per SIP (nothing to interleave over; "
      "it would be --placement local)");
  host_memory_map map;
  std::vector<operand_addresses> out;
  out.reserve(pes.size());
  for (const pe_site& pe : pes) {
    auto hbm = [&](uint32_t sip, uint32_t cube) {
      return global_address{mem_space::hbm, sip, cube, 0, 0};
    };
    const global_address own = hbm(pe.sip, pe.cube);
    std::array<global_address, 3> where{own, own, own};
    switch (how) {
    case placement::local:
      break;
    case placement::remote_cube:
      where[1] = hbm(pe.sip, (pe.cube ^ 1u) < cubes ? pe.cube ^ 1u : pe.cube - 1);
      break;
    case placement::remote_sip:
      where[1] = hbm((pe.sip + 1) % sips, pe.cube);
      break;
    case placement::sram:
      where[1] = global_address{mem_space::sram, pe.sip, pe.cube, 0, 0};
      break;
    case placement::interleaved:
      for (uint32_t i = 0; i < 3; ++i)
        where[i] = hbm(pe.sip, (pe.cube + pe.pe + i) % cubes);
      break;
    }
    const std::array<uint64_t, 3> bytes{sizes.a, sizes.b, sizes.c};
    std::array<uint64_t, 3> addr{};
    for (uint32_t i = 0; i < 3; ++i) {
      if (bytes[i] == 0)
        continue;
      const std::string what =
        fmt::format("sip{}.cube{}.pe{} operand {}", pe.sip, pe.cube, pe.pe, "ABC"[i]);
      // A PE's first region in each memory starts on a 1 MiB boundary.
      bool first = true;
      for (uint32_t j = 0; j < i; ++j)
        first = first && !(bytes[j] != 0 && where[j] == where[i]);
      addr[i] = map.allocate(where[i], bytes[i], first ? pe_boundary : page, what);
    }
    operand_addresses at{addr[0], addr[1], addr[2], {}};
    for (size_t e = 0; e < sizes.extra.size(); ++e)
      at.extra.push_back(map.allocate(
        where[2], sizes.extra[e], page,
        fmt::format("sip{}.cube{}.pe{} epilogue operand {}", pe.sip, pe.cube, pe.pe, e)));
    out.push_back(std::move(at));
  }
  return out;
}

} // namespace kb
