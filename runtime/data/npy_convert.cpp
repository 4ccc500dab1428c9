#include "runtime/data/npy_convert.hpp"

#include "runtime/data/dtype_convert.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace kb {

namespace {

/// One element as the file holds it: an integer (exact in int64) or a
/// floating-point value (exact in a double).
struct element {
  bool integer = false;
  int64_t i = 0;
  double d = 0;
  bool single = false; ///< a float of the file's f32/f16: printed as one
};

element read_element(const npy_array& a, uint64_t index) {
  const uint8_t* p = a.data.data() + index * a.element_bytes();
  element e;
  switch (a.extra) {
  case npy_extra::f64:
    std::memcpy(&e.d, p, 8);
    return e;
  case npy_extra::i64:
    e.integer = true;
    std::memcpy(&e.i, p, 8);
    return e;
  case npy_extra::u8:
    e.integer = true;
    e.i = *p;
    return e;
  case npy_extra::none:
    break;
  }
  if (a.type == dtype::i8 || a.type == dtype::i32) {
    e.integer = true;
    int32_t v = 0;
    if (a.type == dtype::i8)
      v = static_cast<int8_t>(*p);
    else
      std::memcpy(&v, p, 4);
    e.i = v;
    return e;
  }
  double d = 0; // f32 or f16 (a file holds no bf16): exact as a double
  decode_f64(a.type, {p, a.element_bytes()}, {&d, 1});
  e.d = d;
  e.single = true;
  return e;
}

bool is_integer(dtype t) { return t == dtype::i8 || t == dtype::i32; }

/// `x` as `t` holds it, and whether that is x itself.
std::pair<double, bool> convert(const element& x, dtype t) {
  if (x.integer) {
    if (is_integer(t)) {
      const int64_t lo = t == dtype::i8 ? -128 : std::numeric_limits<int32_t>::min();
      const int64_t hi = t == dtype::i8 ? 127 : std::numeric_limits<int32_t>::max();
      const int64_t y = x.i < lo ? lo : x.i > hi ? hi : x.i;
      return {static_cast<double>(y), y == x.i};
    }
    // An i64 beyond 2^53 is rounded to f64 first; the check below is exact.
    const double y = round_to(t, static_cast<double>(x.i));
    const bool same = std::isfinite(y) && y >= -0x1p63 && y < 0x1p63 &&
                      static_cast<int64_t>(y) == x.i;
    return {y, same};
  }
  const double y = round_to(t, x.d);
  return {y, y == x.d || (std::isnan(y) && std::isnan(x.d))};
}

std::string text_of(const element& x) {
  if (x.integer)
    return std::to_string(x.i);
  if (x.single)
    return fmt::format("{}", static_cast<float>(x.d));
  return fmt::format("{}", x.d);
}

std::string text_of(double y, dtype t) {
  if (is_integer(t))
    return fmt::format("{}", static_cast<int64_t>(y));
  return fmt::format("{:.9g}", y);
}

} // namespace

npy_conversion convert_npy(const npy_array& a, dtype t) {
  const uint64_t n = a.elements();
  npy_conversion c;
  c.values.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    const element x = read_element(a, i);
    const auto [y, same] = convert(x, t);
    c.values[i] = y;
    if (same || c.changed++ > 0)
      continue;
    c.first = i;
    c.first_was = text_of(x);
    c.first_becomes = text_of(y, t);
  }
  c.bytes.resize(n * dtype_bytes(t));
  encode_f64(t, c.values, c.bytes); // exact: every value is one of t's
  return c;
}

} // namespace kb
