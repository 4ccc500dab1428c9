#include "runtime/data/op_atomic.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace kb {

namespace {

template <class T, class F>
void each(std::span<uint8_t> dst, std::span<const uint8_t> src, F f) {
  for (size_t at = 0; at + sizeof(T) <= dst.size(); at += sizeof(T)) {
    T a, b;
    std::memcpy(&a, dst.data() + at, sizeof(T));
    std::memcpy(&b, src.data() + at, sizeof(T));
    const T r = f(a, b);
    std::memcpy(dst.data() + at, &r, sizeof(T));
  }
}

} // namespace

void apply_atomic(math_fn f, dtype type, std::span<uint8_t> dst, std::span<const uint8_t> src) {
  if (dst.size() != src.size())
    throw std::logic_error("apply_atomic: operand and destination differ in size");
  if (!is_atomic(f))
    throw std::logic_error("apply_atomic: not an atomic");
  const bool add = f == math_fn::atomic_add;
  if (type == dtype::f32)
    each<float>(dst, src, [add](float a, float b) {
      if (add)
        return a + b;
      if (std::isnan(a))
        return a;
      return std::isnan(b) || a < b ? b : a;
    });
  else if (type == dtype::i32)
    each<uint32_t>(dst, src, [add](uint32_t a, uint32_t b) {
      if (add)
        return a + b; // mod 2^32: the two's complement sum
      return static_cast<int32_t>(a) < static_cast<int32_t>(b) ? b : a;
    });
  else
    throw std::logic_error("apply_atomic: f32 or i32 elements only");
}

void run_atomic(const op_record& r, memory_image& m, std::vector<uint8_t>& bytes) {
  const tensor_view& out = r.out;
  const tensor_view& operand = r.inputs[1];
  const uint64_t n = out.rows * out.row_bytes();
  bytes.resize(2 * n);
  const std::span<uint8_t> cur(bytes.data(), n), add(bytes.data() + n, n);
  m.read_rows(out.address, out.row_stride, out.rows, out.row_bytes(), cur);
  m.read_rows(operand.address, operand.row_stride, operand.rows, operand.row_bytes(), add);
  apply_atomic(r.fn, out.type, cur, add);
  m.write_rows(out.address, out.row_stride, out.rows, out.row_bytes(), cur);
}

} // namespace kb
