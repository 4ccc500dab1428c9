#include "runtime/plan/detail/tiling.hpp"

#include "runtime/plan/plan_error.hpp"

#include <limits>

namespace kb::detail {

void require_nonzero(std::string_view generator, std::string_view what,
                     uint32_t value) {
  if (value == 0)
    throw plan_error(std::string{generator} + ": " + std::string{what} +
                     " must be > 0");
}

void require_region(std::string_view generator, std::string_view matrix,
                    uint64_t base, uint32_t rows, uint32_t cols, dtype t) {
  // rows * cols < 2^64 always; times at most 4 bytes may not be.
  constexpr uint64_t max = std::numeric_limits<uint64_t>::max();
  uint64_t elements = uint64_t{rows} * cols;
  uint64_t eb = dtype_bytes(t);
  bool fits = elements <= max / eb && base <= max - (elements * eb - 1);
  if (!fits)
    throw plan_error(std::string{generator} + ": matrix " +
                     std::string{matrix} + " (" + std::to_string(rows) + " x " +
                     std::to_string(cols) + " " + std::string{to_string(t)} +
                     " at " + std::to_string(base) +
                     ") overflows the 64-bit address space");
}

void require_tile_total(std::string_view generator, uint64_t tiles) {
  if (tiles > std::numeric_limits<uint32_t>::max())
    throw plan_error(std::string{generator} + ": " + std::to_string(tiles) +
                     " tiles exceed the 32-bit tile id range");
}

void set_dma_region(stage_params& params, char operand,
                    const matrix_block& block) {
  uint64_t eb = dtype_bytes(block.type);
  params.operand = operand;
  params.address =
      block.base + (uint64_t{block.row0} * block.ld + block.col0) * eb;
  params.row_stride_bytes = uint64_t{block.ld} * eb;
  params.rows = block.rows;
  params.row_bytes = uint64_t{block.cols} * eb;
  params.bytes = params.row_bytes * block.rows;
}

} // namespace kb::detail
