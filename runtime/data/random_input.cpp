#include "runtime/data/random_input.hpp"

#include "runtime/data/dtype_convert.hpp"

#include <algorithm>
#include <cstring>

namespace kb {

namespace {

/// SplitMix64's output function: a bijection that mixes every input bit.
uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr uint64_t golden = 0x9E3779B97F4A7C15ull;

} // namespace

random_input_stream::random_input_stream(uint64_t seed, uint64_t index, float lo, float hi)
  : key_(mix(mix(seed * golden + index + 1) + golden)), lo_(lo), span_(hi - lo) {}

float random_input_stream::at(uint64_t i) const {
  // 24 random bits: a float in [0, 1) exactly, then scaled into [lo, hi).
  const float u = static_cast<float>(mix(key_ + (i + 1) * golden) >> 40) * 0x1p-24f;
  return lo_ + u * span_;
}

void random_input_stream::fill(uint64_t first, std::span<float> out) const {
  for (size_t j = 0; j < out.size(); ++j)
    out[j] = at(first + j);
}

void random_input_stream::fill_bytes(dtype type, uint64_t first_byte,
                                     std::span<uint8_t> out) const {
  const uint32_t e = dtype_bytes(type);
  const bool integer = type == dtype::i8 || type == dtype::i32;
  constexpr uint64_t chunk = 4096; // elements at a time
  std::vector<float> values;
  std::vector<double> wide;
  std::vector<uint8_t> bytes;
  uint64_t done = 0;
  while (done < out.size()) {
    const uint64_t at_byte = first_byte + done;
    const uint64_t first = at_byte / e, skip = at_byte % e;
    const uint64_t n = std::min<uint64_t>(chunk, (skip + out.size() - done + e - 1) / e);
    values.resize(n);
    bytes.resize(n * e);
    fill(first, values);
    if (integer) {
      wide.assign(values.begin(), values.end());
      encode_f64(type, wide, bytes);
    } else {
      encode_f32(type, values, bytes);
    }
    const uint64_t take = std::min<uint64_t>(n * e - skip, out.size() - done);
    std::memcpy(out.data() + done, bytes.data() + skip, take);
    done += take;
  }
}

} // namespace kb
