#pragma once
// GEMM plan generator (ADR-0042 D2-D4, DESIGN §4 rules 6-7).

#include "runtime/plan/dtype.hpp"
#include "runtime/plan/math_op.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/plan/tile_source.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kb {

/// Arguments of `generate_gemm_plan`: C (m x n) = A (m x k) * B (k x n), all
/// row-major in global memory.
struct gemm_plan_args {
  // -- problem and tile shape ------------------------------------------------
  uint32_t m = 0;
  uint32_t k = 0;
  uint32_t n = 0;
  uint32_t tile_m = 0;
  uint32_t tile_k = 0;
  uint32_t tile_n = 0;

  // -- element types
  // -----------------------------------------------------------
  /// Element type of A and B.
  dtype in_dtype = dtype::f32;
  /// Element type of C; empty means `in_dtype`.
  std::optional<dtype> out_dtype;

  // -- global base addresses
  // ---------------------------------------------------
  uint64_t a_addr = 0;
  uint64_t b_addr = 0;
  uint64_t c_addr = 0;

  // -- placement and options
  // ---------------------------------------------------
  /// PE node id the unit ids hang off, e.g. "sip0.cube0.pe0".
  std::string pe_prefix;
  /// A already sits in TCM: no DMA_READ(A) (FETCH still moves the A tile).
  /// `a_addr` says where its data is (normally a TCM tensor): the replay
  /// reads each tile's block of it there (the GEMM stage's `pinned_a`).
  bool a_pinned = false;
  /// B already sits in TCM: no DMA_READ(B) (FETCH still moves the B tile);
  /// its data at `b_addr`, as for A.
  bool b_pinned = false;
  /// Epilogue ops in order; each must carry a scope.
  std::vector<epilogue_op> epilogue;
};

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
/// Throws `plan_error` for a zero dimension or tile size, an empty
/// `pe_prefix`, an epilogue op without a scope, or a matrix that overflows
/// the 64-bit address space.
pipeline_plan generate_gemm_plan(const gemm_plan_args& args);

/// The same tiles one at a time (`materialize` of it is generate_gemm_plan);
/// checks `args` as generate_gemm_plan does, before any tile is built.
std::unique_ptr<tile_source> gemm_tiles(const gemm_plan_args& args);

} // namespace kb
