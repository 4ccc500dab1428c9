#pragma once
// A kernel's seeded random inputs (docs/kernels.md "Inputs"): element i of
// input `index` is a uniform float in [lo, hi) drawn from a counter-based
// generator keyed by (seed, index, i), so any range of elements can be made
// on its own, in any order, on any thread, with the same values. The host
// uses this to deploy an input lazily: its bytes exist only when something
// reads them (docs/adr/0028), and a run that never loads an input never
// pays for it.

#include "kernels/dtype.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace kb {

class random_input_stream {
public:
  random_input_stream(uint64_t seed, uint64_t index, float lo, float hi);

  /// Element i as a float (before any rounding to the tensor's dtype).
  float at(uint64_t i) const;
  /// Elements [first, first + out.size()).
  void fill(uint64_t first, std::span<float> out) const;
  /// The bytes [first_byte, first_byte + out.size()) of the elements encoded
  /// as `type` (floats rounded to nearest even, integers as encode_f64 does).
  void fill_bytes(dtype type, uint64_t first_byte, std::span<uint8_t> out) const;

private:
  uint64_t key_;
  float lo_, span_;
};

} // namespace kb
