#pragma once
// Element-wise MATH plan generator (seed ADR-0042 D5).

#include "kernels/command_args.hpp"
#include "kernels/dtype.hpp"
#include "kernels/math_op.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/plan/tile_source.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace kb {

/// Builds the tile plan of an element-wise command. Tiles run m outer, n
/// inner; `tile_id` counts in that order, `k` is always 0. Tile counts are
/// `max(1, ceil(dim / tile))`; edge tiles take the remainder. Per tile:
///
///   DMA_READ(src, operand 'A') FETCH MATH STORE DMA_WRITE(dst, operand 'C')
///
/// FETCH moves the input tile (input dtype); MATH acts on tm*tn elements
/// (no scope); STORE and DMA_WRITE move the output tile in the output dtype.
/// `tk` is 0 and `last_k` true on every stage. Pure, deterministic and
/// idempotent.
///
/// Throws `plan_error` for a zero dimension or tile size, or a matrix that
/// overflows the 64-bit address space.
pipeline_plan generate_math_plan(const math_plan_args& args);

/// The same tiles one at a time (`materialize` of it is generate_math_plan);
/// checks `args` as generate_math_plan does, before any tile is built.
std::unique_ptr<tile_source> math_tiles(const math_plan_args& args);

} // namespace kb
