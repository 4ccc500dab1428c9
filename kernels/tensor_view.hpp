#pragma once
// A tensor in memory: a row-major 2-D strided view (seed ADR-0020 D5/D7). Plans
// name the blocks a tile's data ops touch with it (a pinned operand, an
// epilogue's operand); Phase 1 records views in op records; Phase 2 loads
// them as f32, computes, stores (runtime/data/tensor.hpp). Part of the kernel
// API (an epilogue's operand, kernels/command_args.hpp).

#include "kernels/dtype.hpp"

#include <cstdint>

namespace kb {

/// `rows` rows of `cols` elements of `type`, row r at `address + r * row_stride`
/// (bytes). Elements of a row are packed. `row_stride >= cols * dtype_bytes(type)`
/// unless `rows <= 1` (then the stride is never used).
struct tensor_view {
  uint64_t address = 0;
  uint32_t rows = 0;
  uint32_t cols = 0;
  uint64_t row_stride = 0;
  dtype type = dtype::f32;

  uint64_t elements() const { return uint64_t{rows} * cols; }
  uint64_t row_bytes() const { return uint64_t{cols} * dtype_bytes(type); }
  /// True if the rows lie back to back (one contiguous byte range).
  bool contiguous() const { return rows <= 1 || row_stride == row_bytes(); }
  /// The `rows` x `cols` block of this view starting at element (row0, col0)
  /// (the caller keeps it inside).
  tensor_view block(uint32_t row0, uint32_t col0, uint32_t block_rows, uint32_t block_cols) const {
    return {address + uint64_t{row0} * row_stride + uint64_t{col0} * dtype_bytes(type),
            block_rows, block_cols, row_stride, type};
  }

  friend bool operator==(const tensor_view&, const tensor_view&) = default;
};

/// A packed (contiguous) rows x cols view at `address`.
inline tensor_view packed_view(uint64_t address, uint32_t rows, uint32_t cols, dtype type) {
  return {address, rows, cols, uint64_t{cols} * dtype_bytes(type), type};
}

} // namespace kb
