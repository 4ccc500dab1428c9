#pragma once
// Internal helpers shared by the plan generators: argument checks, tile
// arithmetic and DMA region descriptors. Not part of the public API.

#include "kernels/dtype.hpp"
#include "runtime/plan/pipeline_plan.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace kb::detail {

/// Throws `plan_error` naming `what` if `value` is zero.
void require_nonzero(std::string_view generator, std::string_view what,
                     uint32_t value);

/// Throws `plan_error` if a row-major `rows` x `cols` matrix of `t` at `base`
/// does not fit the 64-bit address space.
void require_region(std::string_view generator, std::string_view matrix,
                    uint64_t base, uint32_t rows, uint32_t cols, dtype t);

/// Throws `plan_error` if `tiles` does not fit a 32-bit tile id.
void require_tile_total(std::string_view generator, uint64_t tiles);

/// `max(1, ceil(dim / tile))`; `tile` must be non-zero.
constexpr uint32_t tile_count(uint32_t dim, uint32_t tile) {
  uint32_t count = dim / tile + (dim % tile != 0 ? 1 : 0);
  return count == 0 ? 1 : count;
}

/// Extent of tile `index` along a dimension: `min(tile, dim - index * tile)`.
constexpr uint32_t tile_extent(uint32_t dim, uint32_t tile, uint32_t index) {
  uint64_t start = uint64_t{index} * tile;
  uint64_t rest = start < dim ? dim - start : 0;
  return static_cast<uint32_t>(rest < tile ? rest : tile);
}

/// A rectangular block of a row-major matrix in global memory.
struct matrix_block {
  uint64_t base = 0; ///< address of element (0, 0) of the matrix
  uint32_t ld = 0;   ///< elements per matrix row (leading dimension)
  uint32_t row0 = 0; ///< first row of the block
  uint32_t col0 = 0; ///< first column of the block
  uint32_t rows = 0; ///< rows in the block
  uint32_t cols = 0; ///< columns in the block
  dtype type = dtype::f32;
};

/// Fills the DMA fields of `params` (operand, address, stride, rows,
/// row_bytes, bytes) for moving `block`.
void set_dma_region(stage_params& params, char operand,
                    const matrix_block& block);

} // namespace kb::detail
