#pragma once
// The DMA commands of a masked load or store (docs/adr/0026): the live
// elements of each row form runs of consecutive columns; rows in a row with
// the same runs form a group, moved by one DMA command of `rows` rows of
// `cols` elements. A ragged edge (the first R rows and C columns live) is
// one group; a mask of live columns only is one group of every row.

#include <cstdint>
#include <span>
#include <vector>

namespace kb {

/// Rows [row, row + rows) x columns [col, col + cols) of a block.
struct mask_run {
  uint32_t row = 0, rows = 0, col = 0, cols = 0;
  friend bool operator==(const mask_run&, const mask_run&) = default;
};

/// The groups of runs of elements equal to `value` in the rows x cols
/// block `flags` (row-major, 0 or 1), ordered by (row, col).
std::vector<mask_run> mask_runs(std::span<const uint8_t> flags, uint32_t rows, uint32_t cols,
                                uint8_t value = 1);

} // namespace kb
