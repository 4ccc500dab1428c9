#pragma once
// Where the host puts each PE's operands (DESIGN §2 Host, issue 11 item 5),
// with the address encoding of ADR-0003. A run names one placement:
//
//   local        A, B and C in the HBM of the PE's own cube (the default)
//   remote-cube  B in the HBM of the neighbouring cube of the same SIP
//                (cube c reads cube c XOR 1: over one UCIe link in the 2x2
//                mesh), A and C local
//   remote-sip   B in the HBM of the same cube of the next SIP (SIP s reads
//                SIP (s + 1) mod S, over the inter-SIP link), A and C local
//   sram         B in the shared SRAM of the own cube, A and C in its HBM
//   interleaved  A, B and C each in the HBM of a different cube of the SIP:
//                operand i of the PE with index p in its cube goes to cube
//                (c + p + i) mod C, so a cube's traffic spreads over all
//                cubes of its SIP
//
// (For a MATH command A is its source and C its destination; it has no B.)
// The host allocates regions in each memory in the order asked (PEs in id
// order), 4 KiB aligned, each PE's first region on a 1 MiB boundary; a
// region that would pass the 64 GiB of a memory's offsets, a misaligned or
// an overlapping region is a clear error naming the memory.

#include "runtime/address.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

enum class placement { local, remote_cube, remote_sip, sram, interleaved };

/// "local", "remote-cube", ...; nullopt for an unknown name.
std::optional<placement> parse_placement(std::string_view name);
const char* to_string(placement p);

/// The regions of a memory and its next free offset.
class host_memory_map {
public:
  /// Reserves [address, address + bytes) at a given address: throws
  /// std::invalid_argument for a region that is misaligned to `align`, runs
  /// past the memory's 64 GiB, or overlaps one reserved before (naming it).
  void reserve(uint64_t address, uint64_t bytes, uint64_t align, const std::string& what);
  /// Allocates `bytes` in the memory of `memory` (its offset is ignored) at
  /// the next offset aligned to `align`; returns the address.
  uint64_t allocate(global_address memory, uint64_t bytes, uint64_t align,
                    const std::string& what);

private:
  struct region {
    uint64_t end;
    std::string what;
  };
  /// Per memory (address with offset 0): regions by start offset.
  std::map<uint64_t, std::map<uint64_t, region>> regions_;
};

/// Bytes of each operand of one command.
struct operand_sizes {
  uint64_t a = 0, b = 0, c = 0; ///< b = 0: no B operand (MATH)
  /// Further operands (a GEMM epilogue's bias, add, mul or dequant tensor),
  /// each placed after C in C's memory.
  std::vector<uint64_t> extra;
};

/// Where one PE's operands live.
struct operand_addresses {
  uint64_t a = 0, b = 0, c = 0;
  std::vector<uint64_t> extra; ///< one per operand_sizes::extra
};

/// A PE by its numbers.
struct pe_site {
  uint32_t sip = 0, cube = 0, pe = 0;
};

/// The operands of every PE of `pes` (in that order) under placement `how`
/// on a machine of `sips` x `cubes` cubes; throws std::invalid_argument
/// naming --placement when the machine cannot host it (remote-cube on one
/// cube per SIP, remote-sip on one SIP) or a memory would overflow.
std::vector<operand_addresses> place_operands(const std::vector<pe_site>& pes,
                                              const operand_sizes& sizes, placement how,
                                              uint32_t sips, uint32_t cubes);

} // namespace kb
