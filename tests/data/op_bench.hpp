#pragma once
// A memory image and the compute scratch to run one op_record on, for the
// Phase 2 op tests (op_compute_test.cpp, op_compute_index_test.cpp).

#include "runtime/data/op_compute.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kb::test {

inline tensor_view f32(uint64_t at, uint32_t rows, uint32_t cols) {
  return packed_view(at, rows, cols, dtype::f32);
}

struct bench {
  memory_image m;
  compute_scratch s;
  /// Writes `x` (as f32, converted to v's dtype) into `v`; returns `v`.
  tensor_view put(tensor_view v, std::vector<float> x) {
    store_f32(m, v, x);
    return v;
  }
  /// Checks and executes `r`; its output as f32.
  std::vector<float> run(const op_record& r) {
    EXPECT_EQ(check(r), "");
    execute(r, m, s);
    return load_f32(m, r.out);
  }
};

} // namespace kb::test
