#pragma once
// The Phase 2 compute kernels: run one op record on a memory image
// (semantics in op_record.hpp). GEMM is one single-threaded Eigen product
// with f32 accumulation, or, with integer operands and an integer output,
// an exact i32 accumulation that wraps on overflow as the hardware's does; math uses Eigen arrays, with exp, log, tanh and
// sqrt from the C library element by element (Eigen's vectorised ones differ
// from them by an ulp or so, and give a different value for the same input
// depending on where it sits in the array). Results depend only on the op and the
// image, never on which thread runs it: scratch buffers are aligned the same
// way everywhere.

#include "runtime/data/memory_image.hpp"
#include "runtime/data/op_record.hpp"

#include <Eigen/Core>

#include <cstdint>
#include <vector>

namespace kb {

/// Buffers reused from op to op by one thread (a batch of same-shape ops
/// allocates once).
struct compute_scratch {
  using floats = std::vector<float, Eigen::aligned_allocator<float>>;
  floats in[3];
  floats out;
  floats small; // an input before broadcasting
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> ints[3]; // integer GEMM: a, b and the accumulator (mod 2^32)
};

/// Runs `r` (which must pass check()) on `m`; returns flops(r).
uint64_t execute(const op_record& r, memory_image& m, compute_scratch& scratch);

} // namespace kb
