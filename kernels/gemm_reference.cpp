#include "kernels/gemm_reference.hpp"

#include <Eigen/Dense>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

std::vector<kernel_tensor> gemm_tensors(const std::string& kernel, uint32_t m, uint32_t k,
                                        uint32_t n, dtype in, dtype out) {
  const bool integer = in == dtype::i8;
  if (integer != (out == dtype::i32))
    throw std::invalid_argument(fmt::format(
      "--arg dtype={} with out_dtype={}: kernel {} accumulates {} (give --arg out_dtype={})",
      to_string(in), to_string(out), kernel,
      integer ? "i8 in i32, exactly" : "f16, bf16 and f32 in f32",
      integer ? "i32" : "f16, bf16 or f32"));
  std::vector<kernel_tensor> t = {{"a", m, k, in}, {"b", k, n, in}, {"c", m, n, out, true}};
  if (integer)
    for (int i : {0, 1}) {
      t[i].lo = -128;
      t[i].hi = 128;
    }
  return t;
}

std::vector<double> gemm_reference(uint32_t m, uint32_t k, uint32_t n, dtype in,
                                   const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(size_t{m} * n);
  if (in == dtype::i8) {
    std::vector<int64_t> acc(n);
    for (uint32_t i = 0; i < m; ++i) {
      std::fill(acc.begin(), acc.end(), 0);
      for (uint32_t kk = 0; kk < k; ++kk) {
        const auto x = static_cast<int64_t>(a[size_t{i} * k + kk]);
        for (uint32_t j = 0; j < n; ++j)
          acc[j] += x * static_cast<int64_t>(b[size_t{kk} * n + j]);
      }
      for (uint32_t j = 0; j < n; ++j)
        out[size_t{i} * n + j] = static_cast<double>(acc[j]);
    }
    return out;
  }
  using matd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<matd>(out.data(), m, n) =
    Eigen::Map<const matd>(a.data(), m, k) * Eigen::Map<const matd>(b.data(), k, n);
  return out;
}

} // namespace kb
