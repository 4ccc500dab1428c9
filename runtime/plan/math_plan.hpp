#pragma once
// Element-wise MATH plan generator (ADR-0042 D5).

#include "runtime/plan/dtype.hpp"
#include "runtime/plan/math_op.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/plan/tile_source.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace kb {

/// Arguments of `generate_math_plan`: dst (m x n) = op(src (m x n)), both
/// row-major in global memory.
struct math_plan_args {
  // -- problem and tile shape ------------------------------------------------
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t tile_m = 0;
  uint32_t tile_n = 0;

  // -- operation and element types
  // ---------------------------------------------
  math_op op = math_op::add;
  /// Element type of src.
  dtype in_dtype = dtype::f32;
  /// Element type of dst; empty means `in_dtype`.
  std::optional<dtype> out_dtype;

  // -- global base addresses
  // ---------------------------------------------------
  uint64_t src_addr = 0;
  uint64_t dst_addr = 0;

  // -- placement
  // ---------------------------------------------------------------
  /// PE node id the unit ids hang off, e.g. "sip0.cube0.pe0".
  std::string pe_prefix;
};

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
/// Throws `plan_error` for a zero dimension or tile size, an empty
/// `pe_prefix`, or a matrix that overflows the 64-bit address space.
pipeline_plan generate_math_plan(const math_plan_args& args);

/// The same tiles one at a time (`materialize` of it is generate_math_plan);
/// checks `args` as generate_math_plan does, before any tile is built.
std::unique_ptr<tile_source> math_tiles(const math_plan_args& args);

} // namespace kb
