#pragma once
// GEMM plan generator (seed ADR-0042 D2-D4, DESIGN §4 rules 6-7).

#include "kernels/command_args.hpp"
#include "kernels/dtype.hpp"
#include "kernels/math_op.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/plan/tile_source.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb {

/// Builds the tile plan of a GEMM command. Tiles run m outer, then n, then k
/// innermost; `tile_id` counts in that order. Tile counts are
/// `max(1, ceil(dim / tile))`; edge tiles take the remainder. Per tile:
///
///   [DMA_READ A] [DMA_READ B] FETCH GEMM MATH(k_tile ops)*
///   and on the last k tile only: MATH(output_tile ops)* STORE DMA_WRITE
///
/// DMA_READ A/B are omitted when pinned. FETCH moves the A and B tiles
/// (input dtype); MATH stages act on tm*tn elements; STORE and DMA_WRITE move
/// the C tile in the output dtype. Pure, deterministic and idempotent.
///
/// Stages name their units by role (the plan is the same on every PE).
///
/// Throws `plan_error` for a zero dimension or tile size, an epilogue op
/// without a scope, or a matrix that overflows the 64-bit address space.
pipeline_plan generate_gemm_plan(const gemm_plan_args& args);

/// The same tiles one at a time (`materialize` of it is generate_gemm_plan);
/// checks `args` as generate_gemm_plan does, before any tile is built.
std::unique_ptr<tile_source> gemm_tiles(const gemm_plan_args& args);

} // namespace kb
