#include "runtime/data/dtype_convert.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>
#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define KB_HAVE_F16C_PATH 1
#endif

namespace kb {

uint16_t f32_to_f16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fff'ffffu;
  if (a > 0x7f80'0000u) // NaN: quiet, keep the top payload bits
    return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477f'f000u) // >= 65520 (halfway past 65504, the largest f16) and inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (a < 0x3880'0000u) { // below 2^-14: an f16 subnormal or zero
    if (a <= 0x3300'0000u) // <= 2^-25, half the smallest subnormal: ties to even 0
      return sign;
    // value = mant * 2^(e - 150); in units of 2^-24 that is mant >> (126 - e).
    const uint32_t e = a >> 23;
    const uint32_t mant = (a & 0x7f'ffffu) | 0x80'0000u;
    const uint32_t shift = 126 - e; // 14..24
    uint32_t r = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u)))
      ++r; // may carry into the smallest normal, which is the right encoding
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t h = ((a >> 23) - 112) << 10 | ((a >> 13) & 0x3ffu);
  const uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    ++h; // a carry into the exponent is the right rounding
  return static_cast<uint16_t>(sign | h);
}

float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (e == 0) {
    const float v = static_cast<float>(mant) * 0x1p-24f; // exact: mant < 2^10
    return sign ? -v : v;
  }
  if (e == 31) // inf, or NaN made quiet (as F16C and IEEE conversions do)
    return std::bit_cast<float>(sign | 0x7f80'0000u | (mant != 0 ? 0x40'0000u : 0u) | (mant << 13));
  return std::bit_cast<float>(sign | ((e + 112) << 23) | (mant << 13));
}

uint16_t f32_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fff'ffffu) > 0x7f80'0000u) // NaN: quiet so the payload cannot vanish
    return static_cast<uint16_t>((x >> 16) | 0x0040u);
  const uint32_t bias = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + bias) >> 16); // overflow rounds to inf
}

float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(uint32_t{b} << 16); }

namespace {
template <class Int, class Float>
Int round_saturate(Float f) {
  if (std::isnan(f))
    return 0;
  constexpr auto lo = static_cast<Float>(std::numeric_limits<Int>::min()); // exact: -2^k
  constexpr Float hi = -lo;                                                // 2^k, one past max
  if (f >= hi)
    return std::numeric_limits<Int>::max();
  if (f <= lo)
    return std::numeric_limits<Int>::min();
  // The default floating-point environment rounds to nearest even.
  const Float r = std::nearbyint(f);
  return r >= hi ? std::numeric_limits<Int>::max() : static_cast<Int>(r);
}

/// `x` as an f32 rounded to odd: truncated, with the lowest bit set when
/// inexact. Rounding that to f16 or bf16 (at least two bits fewer) to
/// nearest even gives the correctly rounded result of `x` itself: no
/// double rounding.
float f32_round_to_odd(double x) {
  float f = static_cast<float>(x);
  if (std::isnan(x) || static_cast<double>(f) == x)
    return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) // rounded away from zero (or to inf)
    f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}
} // namespace

int8_t f32_to_i8(float f) { return round_saturate<int8_t>(f); }
int32_t f32_to_i32(float f) { return round_saturate<int32_t>(f); }

double round_to(dtype t, double x) {
  switch (t) {
  case dtype::f32:
    return static_cast<float>(x); // IEEE: nearest even, overflow to inf
  case dtype::f16:
    return f16_to_f32(f32_to_f16(f32_round_to_odd(x)));
  case dtype::bf16:
    return bf16_to_f32(f32_to_bf16(f32_round_to_odd(x)));
  case dtype::i8:
    return round_saturate<int8_t>(x);
  case dtype::i32:
    return round_saturate<int32_t>(x);
  }
  throw std::invalid_argument("round_to: unknown dtype");
}

// -- f16 arrays: the F16C instructions where the CPU has them ------------------
// F16C converts with IEEE round to nearest even, subnormals included, so it
// gives the same bits as f32_to_f16 / f16_to_f32 (the tests compare both on
// every f16 and on a sweep of f32 bit patterns, NaNs included); only speed
// depends on the CPU.

namespace {

#ifdef KB_HAVE_F16C_PATH
__attribute__((target("avx,f16c"))) void decode_f16_f16c(const uint8_t* in, float* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i))));
  for (; i < n; ++i)
    out[i] = f16_to_f32(static_cast<uint16_t>(in[2 * i] | in[2 * i + 1] << 8));
}

__attribute__((target("avx,f16c"))) void encode_f16_f16c(const float* in, uint8_t* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) {
    const uint16_t h = f32_to_f16(in[i]);
    out[2 * i] = static_cast<uint8_t>(h);
    out[2 * i + 1] = static_cast<uint8_t>(h >> 8);
  }
}

bool cpu_has_f16c() {
  // F16C from CPUID (clang 14, the fuzz build's compiler, knows no "f16c"
  // for __builtin_cpu_supports); "avx" also checks that the OS saves the
  // AVX registers.
  static const bool yes = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) != 0 &&
           (c & bit_F16C) != 0;
  }();
  return yes;
}
#else
bool cpu_has_f16c() { return false; }
#endif

} // namespace

bool f16_hardware_conversion() { return cpu_has_f16c(); }

void decode_f32(dtype t, std::span<const uint8_t> bytes, std::span<float> out) {
  const size_t n = out.size();
  if (bytes.size() != n * dtype_bytes(t))
    throw std::invalid_argument("decode_f32: the byte count does not match the element count");
  if (n == 0) // empty spans may hold null pointers, which memcpy must not get
    return;
  const uint8_t* p = bytes.data();
  switch (t) {
  case dtype::f32:
    std::memcpy(out.data(), p, n * 4);
    return;
  case dtype::f16:
#ifdef KB_HAVE_F16C_PATH
    if (cpu_has_f16c()) {
      decode_f16_f16c(p, out.data(), n);
      return;
    }
#endif
    for (size_t i = 0; i < n; ++i)
      out[i] = f16_to_f32(static_cast<uint16_t>(p[2 * i] | p[2 * i + 1] << 8));
    return;
  case dtype::bf16:
    for (size_t i = 0; i < n; ++i)
      out[i] = bf16_to_f32(static_cast<uint16_t>(p[2 * i] | p[2 * i + 1] << 8));
    return;
  case dtype::i8:
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<float>(static_cast<int8_t>(p[i]));
    return;
  case dtype::i32:
    for (size_t i = 0; i < n; ++i) {
      int32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      out[i] = static_cast<float>(v);
    }
    return;
  }
  throw std::invalid_argument("decode_f32: unknown dtype");
}

void encode_f32(dtype t, std::span<const float> in, std::span<uint8_t> bytes) {
  const size_t n = in.size();
  if (bytes.size() != n * dtype_bytes(t))
    throw std::invalid_argument("encode_f32: the byte count does not match the element count");
  if (n == 0)
    return;
  uint8_t* p = bytes.data();
  auto put16 = [p](size_t i, uint16_t v) {
    p[2 * i] = static_cast<uint8_t>(v);
    p[2 * i + 1] = static_cast<uint8_t>(v >> 8);
  };
  switch (t) {
  case dtype::f32:
    std::memcpy(p, in.data(), n * 4);
    return;
  case dtype::f16:
#ifdef KB_HAVE_F16C_PATH
    if (cpu_has_f16c()) {
      encode_f16_f16c(in.data(), p, n);
      return;
    }
#endif
    for (size_t i = 0; i < n; ++i)
      put16(i, f32_to_f16(in[i]));
    return;
  case dtype::bf16:
    for (size_t i = 0; i < n; ++i)
      put16(i, f32_to_bf16(in[i]));
    return;
  case dtype::i8:
    for (size_t i = 0; i < n; ++i)
      p[i] = static_cast<uint8_t>(f32_to_i8(in[i]));
    return;
  case dtype::i32:
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = f32_to_i32(in[i]);
      std::memcpy(p + 4 * i, &v, 4);
    }
    return;
  }
  throw std::invalid_argument("encode_f32: unknown dtype");
}

void decode_f64(dtype t, std::span<const uint8_t> bytes, std::span<double> out) {
  const size_t n = out.size();
  if (bytes.size() != n * dtype_bytes(t))
    throw std::invalid_argument("decode_f64: the byte count does not match the element count");
  if (t == dtype::i32) { // exact beyond 2^24, where an f32 would round
    for (size_t i = 0; i < n; ++i) {
      int32_t v;
      std::memcpy(&v, bytes.data() + 4 * i, 4);
      out[i] = v;
    }
    return;
  }
  std::vector<float> f(n); // every other dtype is exact in f32
  decode_f32(t, bytes, f);
  std::copy(f.begin(), f.end(), out.begin());
}

void encode_f64(dtype t, std::span<const double> in, std::span<uint8_t> bytes) {
  const size_t n = in.size();
  if (bytes.size() != n * dtype_bytes(t))
    throw std::invalid_argument("encode_f64: the byte count does not match the element count");
  if (t == dtype::i32) {
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = round_saturate<int32_t>(in[i]);
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    }
    return;
  }
  // round_to's value is exact in f32, so encoding it is exact too.
  std::vector<float> f(n);
  for (size_t i = 0; i < n; ++i)
    f[i] = static_cast<float>(round_to(t, in[i]));
  encode_f32(t, f, bytes);
}

} // namespace kb
