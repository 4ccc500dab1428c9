#pragma once
// The arguments of the composite commands a kernel issues (tl.gemm, tl.math;
// kernels/tl.hpp), which the plan generators turn into tiles
// (runtime/plan/gemm_plan.hpp, runtime/plan/math_plan.hpp). Part of the
// kernel API.

#include "kernels/dtype.hpp"
#include "kernels/math_op.hpp"

#include <cstdint>
#include <optional>
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
};

} // namespace kb
