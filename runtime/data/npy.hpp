#pragma once
// NumPy .npy files (format 1.0), so tensors can be checked by any tool
// (DESIGN §5, `--dump-tensors DIR`).
//
// Written descrs: '<f4' (f32), '<f2' (f16), '|i1' (i8), '<i4' (i32). NumPy
// has no bfloat16, so a bf16 tensor is written as '<f4': every bf16 value is
// an f32 exactly (the widening loses nothing), and reading it back gives f32.
// Read: the same four descrs ('<i1' too) and three NumPy types kernbench
// has no dtype for: '<f8' (f64), '<i8' (NumPy's int64: kernbench's i8 is
// NumPy's '|i1') and '|u1' (uint8), converted when deployed
// (npy_convert.hpp); C order only, format 1.0, 2.0 or 3.0.
// A bad or truncated file, Fortran order or another descr is a
// std::runtime_error naming the file and what is wrong.

#include "runtime/data/memory_image.hpp"
#include "runtime/data/tensor.hpp"
#include "kernels/dtype.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

/// NumPy element types read from files that are no kernbench dtype.
enum class npy_extra : uint8_t { none, f64, i64, u8 };

/// An array as a .npy file holds it: element type, shape, packed
/// little-endian elements in C order.
struct npy_array {
  dtype type = dtype::f32;     ///< the element type, unless `extra` says otherwise
  std::vector<uint64_t> shape; // 1-D or 2-D when written by kernbench
  std::vector<uint8_t> data;
  npy_extra extra = npy_extra::none; ///< set (read only): the elements are f64, i64 or u8

  uint64_t elements() const;
  /// Bytes per element.
  uint32_t element_bytes() const;
  /// The NumPy descr of the elements ("<f4", "<f8", ...).
  std::string descr() const;
};

/// The NumPy descr string of `t` as written ("<f4"; bf16 -> "<f4").
std::string npy_descr(dtype t);

/// The complete header NumPy 1.0 writes for `t` and `shape`: magic, version,
/// length, the dict padded with spaces to a 64-byte boundary, newline.
std::string npy_header(dtype t, const std::vector<uint64_t>& shape);

/// Writes `a` to `path` (bf16 data is widened to f32). Throws
/// std::runtime_error if the file cannot be written or `data` does not match
/// the shape.
void write_npy(const std::string& path, const npy_array& a);
/// Writes the tensor `v` of `m` as a 2-D array (rows, cols).
void write_npy(const std::string& path, const memory_image& m, const tensor_view& v);
/// Writes f32 `values` converted to `t` as an array of `shape`.
void write_npy(const std::string& path, std::span<const float> values,
               const std::vector<uint64_t>& shape, dtype t);

/// Reads a .npy file (see the header comment for what is accepted).
npy_array read_npy(const std::string& path);
/// Stores the array of `path` into the tensor `v` of `m` (how the host puts
/// input tensors into the initial image): the array must hold v.rows x
/// v.cols elements, as a (rows, cols) array or a 1-D one of rows * cols;
/// elements are converted to v.type (copied as they are if the type is the
/// same). A mismatch is a std::runtime_error naming the file.
void read_npy_into(const std::string& path, memory_image& m, const tensor_view& v);

/// The elements of `a` converted to f32 (f64 and i64 rounded to nearest).
std::vector<float> to_f32(const npy_array& a);

} // namespace kb
