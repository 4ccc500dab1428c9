#pragma once
// The values of a .npy file as a tensor of a kernbench dtype (`run --input
// TENSOR=FILE.npy`, docs/kernels.md): each element is converted straight
// from the file's type (f32, f16, i8, i32, f64, i64 or u8; through f64, or
// int64 for integer files, never through f32) as a store converts
// (dtype_convert's round_to: floats round to nearest even and overflow to
// inf, integers round to nearest even and saturate, NaN -> 0), and every
// element whose value that changes is counted: a finite value that
// overflows, NaN or inf into an integer type, a fraction into an integer
// type, a value out of an integer type's range, a value a narrower float
// rounds. The caller refuses a lossy conversion unless told to cast.

#include "runtime/data/npy.hpp"
#include "kernels/dtype.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

struct npy_conversion {
  std::vector<uint8_t> bytes; ///< the elements as `t` holds them, packed
  std::vector<double> values; ///< the same values, exactly
  uint64_t changed = 0;       ///< elements whose value the conversion changes
  uint64_t first = 0;         ///< row-major index of the first of them
  std::string first_was;      ///< its value in the file, as text ("100000", "nan")
  std::string first_becomes;  ///< its value as `t` ("inf", "0")
};

/// Converts every element of `a` to `t`.
npy_conversion convert_npy(const npy_array& a, dtype t);

} // namespace kb
