#pragma once
// Operands of an i8 GEMM whose every sum leaves f32's exact range (issue 28):
// A (m x k) and B (k x n) hold values 100..127, so with k = 4096 each sum is
// above 4096 x 100^2 = 4.1e7 > 2^24, where f32 spacing is 4 or 8. Written
// as i8 .npy files for `--input a=... --input b=...` (shared by the CLI and
// host tests).

#include "runtime/data/npy.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kb::test {

inline void write_i8_gemm_operands(const std::string& a_path, const std::string& b_path,
                                   uint32_t m, uint32_t k, uint32_t n) {
  std::vector<float> a(size_t{m} * k), b(size_t{k} * n);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < k; ++j)
      a[size_t{i} * k + j] = static_cast<float>(100 + (i * 7 + j * 13) % 28);
  for (uint32_t i = 0; i < k; ++i)
    for (uint32_t j = 0; j < n; ++j)
      b[size_t{i} * n + j] = static_cast<float>(100 + (i * 5 + j * 11) % 28);
  write_npy(a_path, a, {m, k}, dtype::i8);
  write_npy(b_path, b, {k, n}, dtype::i8);
}

} // namespace kb::test
