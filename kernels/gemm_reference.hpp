#pragma once
// The D11 reference of C = A x B shared by the GEMM kernels (gemm,
// gemm_pipelined): exact for i8 (products summed in int64, so a sum beyond
// i32 is the reference overflowing the output, which the verifier says), in
// f64 for float types (the reference's own rounding stays far below the
// f32 tolerance whatever order the tiles summed in).

#include "kernels/registry.hpp"

#include <cstdint>
#include <vector>

namespace kb {

/// C (m x n), row-major, of A (m x k) and B (k x n) as deployed.
std::vector<double> gemm_reference(uint32_t m, uint32_t k, uint32_t n, dtype in,
                                   const std::vector<double>& a, const std::vector<double>& b);

} // namespace kb
