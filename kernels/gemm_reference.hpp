#pragma once
// What the GEMM kernels (gemm, gemm_pipelined, gemm_splitk) share: their A,
// B and C tensors, and the D11 reference of C = A x B:
// exact for i8 (products summed in int64, so a sum beyond
// i32 is the reference overflowing the output, which the verifier says), in
// f64 for float types (the reference's own rounding stays far below the
// f32 tolerance whatever order the tiles summed in).

#include "kernels/registry.hpp"

#include <cstdint>
#include <vector>

namespace kb {

/// A GEMM kernel's A, B and C tensors ("a", "b", "c"): i8 operands take the
/// whole i8 range (random values round to nearest and saturate). Refuses an
/// i8 A and B without an i32 C, and float ones with an i32 C, naming `kernel`.
std::vector<kernel_tensor> gemm_tensors(const std::string& kernel, uint32_t m, uint32_t k,
                                        uint32_t n, dtype in, dtype out);

/// C (m x n), row-major, of A (m x k) and B (k x n) as deployed.
std::vector<double> gemm_reference(uint32_t m, uint32_t k, uint32_t n, dtype in,
                                   const std::vector<double>& a, const std::vector<double>& b);

} // namespace kb
