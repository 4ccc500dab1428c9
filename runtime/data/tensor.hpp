#pragma once
// A tensor in memory: a row-major 2-D strided view (seed ADR-0020 D5/D7). Phase 1
// records views in op records; Phase 2 loads them as f32, computes, stores.

#include "runtime/data/memory_image.hpp"
#include "kernels/dtype.hpp"
#include "kernels/tensor_view.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kb {

/// A half-open byte range [first, last).
struct byte_range {
  uint64_t first = 0;
  uint64_t last = 0;
  bool empty() const { return last <= first; }
  friend bool operator==(const byte_range&, const byte_range&) = default;
};

/// The bytes a view touches, from its first element to one past its last:
/// [address, address + (rows - 1) * row_stride + row_bytes). Empty for an
/// empty view. For a strided view this includes the gaps between rows.
byte_range byte_span(const tensor_view& v);

/// The bytes `v` covers as ranges: one per row for a strided view with gaps
/// and at most `max_rows` rows, else just byte_span(v). Empty for an empty view.
std::vector<byte_range> row_ranges(const tensor_view& v, uint32_t max_rows = 256);

/// Whether `a` and `b` share a byte. Exact for contiguous views and for views
/// with the same row stride (O(1)); two views of different strides are
/// checked row by row if the shorter has at most `max_row_checks` rows, else
/// answered by whether their spans overlap (conservative: maybe a false yes).
bool views_overlap(const tensor_view& a, const tensor_view& b, uint32_t max_row_checks = 256);
/// max_row_checks for an exact answer whatever the views' rows.
inline constexpr uint32_t exact_overlap = UINT32_MAX;
/// Whether the bytes of `r` meet a byte of `v` (exact).
bool view_meets(const tensor_view& v, byte_range r);

/// "" if `v` is well formed, else what is wrong (stride below the row size,
/// or bytes past the end of the 64-bit address space).
std::string check_view(const tensor_view& v);

/// "0x1000 4x8 f16 stride 16" (for messages).
std::string to_string(const tensor_view& v);

/// The elements of `v`, row-major, converted to f32.
std::vector<float> load_f32(const memory_image& m, const tensor_view& v);
/// Into `out` (v.elements() long); `bytes` is scratch space, grown as needed.
void load_f32(const memory_image& m, const tensor_view& v, std::span<float> out,
              std::vector<uint8_t>& bytes);

/// Stores `values` (row-major, v.elements() of them) converted to v.type.
void store_f32(memory_image& m, const tensor_view& v, std::span<const float> values);
void store_f32(memory_image& m, const tensor_view& v, std::span<const float> values,
               std::vector<uint8_t>& bytes);

/// The raw elements of `v`, packed row after row (v.elements() * element size).
std::vector<uint8_t> load_bytes(const memory_image& m, const tensor_view& v);
/// Stores packed raw elements into `v`.
void store_bytes(memory_image& m, const tensor_view& v, std::span<const uint8_t> packed);

} // namespace kb
