#pragma once
// What a served stage did to data, as an op record for the Phase 2 replay
// (seed ADR-0020 D5): the one mapping from the PE pipeline's stages to data ops,
// used by the unit base class's hook (D2).
//
// A kernel's own loads and stores name their TCM end (`localAddress`). The
// tiles of composite commands use operand slots of the PE's scheduler
// instead, in an address space no memory has (space 3 of ADR-0003's
// encoding): per PE, four regions (A, B, the f32 accumulator, C) of
// `slots` slots of 1 MiB. The scheduler numbers the tiles it feeds
// (TileToken.slot, a running count mod `slots`); a tile's A, B and C slots
// are its number, its accumulator is that of the output tile's first K
// tile (number - k). Fewer than `slots` tiles are ever in flight on a PE, so
// no two live tiles share a slot; Phase 2 orders slot reuse by address.
//
//   dma_read   global block -> TCM tensor, or -> slot A / B     (memory)
//   fetch      (no data op: GEMM and MATH read the slots)
//   gemm       slot A x slot B -> accumulator (+= after k = 0)  (gemm)
//              (a pinned operand: its block, read in place)
//   math       epilogue: f(accumulator) in place, with the op's operand
//              block (bias, add, mul, dequant) or value (scale); MATH
//              command: f(slot A) -> accumulator                 (math)
//   store      accumulator -> slot C in the output dtype         (memory)
//   dma_write  TCM tensor or slot C -> global block             (memory)

#include "messages/pipeline.capnp.h"
#include "runtime/data/op_record.hpp"
#include "runtime/node_place.hpp"
#include "runtime/sim_time.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace kb::stage_ops {

inline constexpr uint32_t slots = 1u << 14;
inline constexpr uint64_t slot_bytes = uint64_t{1} << 20;

enum class region : uint8_t { a = 0, b = 1, acc = 2, c = 3 };

/// The PE a unit at `place` belongs to, as (sip, cube, pe) packed in 24
/// bits; throws naming `unit_name` for a node outside a PE.
uint32_t pe_key(const node_place& place, const std::string& unit_name);

/// Address of slot `slot` of `r` on PE `pe`.
uint64_t slot_address(uint32_t pe, region r, uint32_t slot);

/// The op record of `stage` of `token`, served by `component` from `start`
/// to `end`; nullopt for a stage that moves no data of its own (fetch).
/// `id` is the record's id. Throws std::runtime_error for a stage whose
/// data cannot be replayed (a tile larger than a slot, an add / mul / bias
/// without an operand, a GEMM operand neither read nor pinned).
std::optional<op_record> op_of(wire::TileToken::Reader token, wire::Stage::Reader stage,
                               const std::string& component, uint32_t pe, SimTime start,
                               SimTime end, uint64_t id);

} // namespace kb::stage_ops
