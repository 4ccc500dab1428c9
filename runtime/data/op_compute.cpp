#include "runtime/data/op_compute.hpp"

#include "runtime/data/dtype_convert.hpp"
#include "runtime/data/op_atomic.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace kb {

namespace {

using floats = compute_scratch::floats;
using row_matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using array = Eigen::Array<float, Eigen::Dynamic, 1>;

void load(const memory_image& m, const tensor_view& v, floats& into, compute_scratch& s) {
  into.resize(v.elements());
  load_f32(m, v, std::span<float>(into.data(), into.size()), s.bytes);
}

void store(memory_image& m, const tensor_view& v, const floats& from, compute_scratch& s) {
  store_f32(m, v, std::span<const float>(from.data(), from.size()), s.bytes);
}

/// Loads input `v` broadcast to rows x cols (same shape, 1 x cols, rows x 1, 1 x 1).
void load_broadcast(const memory_image& m, const tensor_view& v, uint32_t rows, uint32_t cols,
                    floats& into, compute_scratch& s) {
  if (v.rows == rows && v.cols == cols) {
    load(m, v, into, s);
    return;
  }
  load(m, v, s.small, s);
  into.resize(uint64_t{rows} * cols);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c)
      into[uint64_t{r} * cols + c] =
        s.small[uint64_t{v.rows == 1 ? 0 : r} * v.cols + (v.cols == 1 ? 0 : c)];
}

Eigen::Map<array, Eigen::Aligned16> as_array(floats& f) {
  return {f.data(), static_cast<Eigen::Index>(f.size())};
}

float nan_max(float a, float b) {
  if (std::isnan(a))
    return a;
  if (std::isnan(b))
    return b;
  return a < b ? b : a;
}

float nan_min(float a, float b) {
  if (std::isnan(a))
    return a;
  if (std::isnan(b))
    return b;
  return b < a ? b : a;
}

/// A comparison or logical_and/or of two elements (NaN compares false).
bool compare(math_fn f, float a, float b) {
  switch (f) {
  case math_fn::lt: return a < b;
  case math_fn::le: return a <= b;
  case math_fn::gt: return a > b;
  case math_fn::ge: return a >= b;
  case math_fn::eq: return a == b;
  case math_fn::ne: return a != b;
  case math_fn::logical_and: return a != 0.0f && b != 0.0f;
  case math_fn::logical_or: return a != 0.0f || b != 0.0f;
  default: throw std::logic_error("compare: not a comparison");
  }
}

bool is_integer(dtype t) { return t == dtype::i8 || t == dtype::i32; }

/// The elements of the integer view `v` (i8 or i32), exactly, as their two's
/// complement bits mod 2^32.
void load_ints(const memory_image& m, const tensor_view& v, std::vector<uint32_t>& into) {
  const std::vector<uint8_t> bytes = load_bytes(m, v);
  into.resize(v.elements());
  for (size_t i = 0; i < into.size(); ++i) {
    int32_t x;
    if (v.type == dtype::i8) {
      x = static_cast<int8_t>(bytes[i]);
    } else {
      std::memcpy(&x, bytes.data() + 4 * i, 4);
    }
    into[i] = static_cast<uint32_t>(x);
  }
}

/// A GEMM of integer operands into an integer output: the products summed
/// in i32 as the hardware does, wrapping on overflow (unsigned arithmetic
/// mod 2^32 is two's complement's); an i8 output saturates as a store does.
void run_int_gemm(const op_record& r, memory_image& m, compute_scratch& s) {
  const auto& av = r.inputs[0];
  const auto& bv = r.inputs[1];
  auto& a = s.ints[0];
  auto& b = s.ints[1];
  auto& c = s.ints[2];
  load_ints(m, av, a);
  load_ints(m, bv, b);
  const uint32_t tm = r.out.rows, tk = r.transpose_a ? av.rows : av.cols, tn = r.out.cols;
  if (r.accumulate)
    load_ints(m, r.out, c);
  else
    c.assign(r.out.elements(), 0u);
  for (uint32_t i = 0; i < tm; ++i)
    for (uint32_t k = 0; k < tk; ++k) {
      const uint32_t x = r.transpose_a ? a[uint64_t{k} * av.cols + i] : a[uint64_t{i} * av.cols + k];
      for (uint32_t j = 0; j < tn; ++j) {
        const uint32_t y =
          r.transpose_b ? b[uint64_t{j} * bv.cols + k] : b[uint64_t{k} * bv.cols + j];
        c[uint64_t{i} * tn + j] += x * y;
      }
    }
  std::vector<uint8_t> bytes(c.size() * dtype_bytes(r.out.type));
  for (size_t i = 0; i < c.size(); ++i) {
    const auto v = static_cast<int32_t>(c[i]);
    if (r.out.type == dtype::i32)
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    else
      bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(round_to(dtype::i8, v)));
  }
  store_bytes(m, r.out, bytes);
}

void run_gemm(const op_record& r, memory_image& m, compute_scratch& s) {
  if (is_integer(r.inputs[0].type) && is_integer(r.inputs[1].type) && is_integer(r.out.type))
    return run_int_gemm(r, m, s);
  const auto& av = r.inputs[0];
  const auto& bv = r.inputs[1];
  load(m, av, s.in[0], s);
  load(m, bv, s.in[1], s);
  const Eigen::Index tm = r.out.rows, tk = r.transpose_a ? av.rows : av.cols, tn = r.out.cols;
  if (r.accumulate)
    load(m, r.out, s.out, s);
  else
    s.out.assign(r.out.elements(), 0.0f);
  Eigen::Map<const row_matrix, Eigen::Aligned16> a(s.in[0].data(), av.rows, av.cols);
  Eigen::Map<const row_matrix, Eigen::Aligned16> b(s.in[1].data(), bv.rows, bv.cols);
  Eigen::Map<row_matrix, Eigen::Aligned16> c(s.out.data(), tm, tn);
  if (tm == 0 || tn == 0 || tk == 0) {
  } else if (r.transpose_a && r.transpose_b) {
    c.noalias() += a.transpose() * b.transpose();
  } else if (r.transpose_a) {
    c.noalias() += a.transpose() * b;
  } else if (r.transpose_b) {
    c.noalias() += a * b.transpose();
  } else {
    c.noalias() += a * b;
  }
  store(m, r.out, s.out, s);
}

void run_unary(const op_record& r, memory_image& m, compute_scratch& s) {
  load(m, r.inputs[0], s.in[0], s);
  s.out.resize(s.in[0].size());
  auto x = as_array(s.in[0]);
  auto y = as_array(s.out);
  const auto k = static_cast<float>(r.scalar);
  switch (r.fn) {
  case math_fn::exp:
    y = x.unaryExpr([](float v) { return std::exp(v); });
    break;
  case math_fn::log:
    y = x.unaryExpr([](float v) { return std::log(v); });
    break;
  case math_fn::relu:
    for (Eigen::Index i = 0; i < x.size(); ++i)
      y[i] = x[i] > 0 || std::isnan(x[i]) ? x[i] : 0.0f;
    break;
  case math_fn::rsqrt: // 1 / sqrt(x), both correctly rounded
    y = x.unaryExpr([](float v) { return 1.0f / std::sqrt(v); });
    break;
  case math_fn::sqrt: // not x.sqrt(): Eigen's fast-math packet sqrt is not correctly rounded
    y = x.unaryExpr([](float v) { return std::sqrt(v); });
    break;
  case math_fn::neg:
    y = -x;
    break;
  case math_fn::abs:
    y = x.abs();
    break;
  case math_fn::recip:
    y = x.inverse();
    break;
  case math_fn::tanh:
    y = x.unaryExpr([](float v) { return std::tanh(v); });
    break;
  case math_fn::scale:
    y = x * k;
    break;
  case math_fn::add_scalar:
    y = x + k;
    break;
  case math_fn::cast:
    y = x;
    break;
  case math_fn::logical_not: // NaN != 0 is true, so not NaN is 0
    for (Eigen::Index i = 0; i < x.size(); ++i)
      y[i] = x[i] != 0.0f ? 0.0f : 1.0f;
    break;
  default:
    throw std::logic_error("run_unary: not a unary fn");
  }
  store(m, r.out, s.out, s);
}

void run_elementwise(const op_record& r, memory_image& m, compute_scratch& s) {
  const uint32_t rows = r.out.rows, cols = r.out.cols;
  for (size_t i = 0; i < r.inputs.size(); ++i)
    load_broadcast(m, r.inputs[i], rows, cols, s.in[i], s);
  s.out.resize(uint64_t{rows} * cols);
  auto a = as_array(s.in[0]);
  auto y = as_array(s.out);
  if (r.fn == math_fn::where) {
    auto b = as_array(s.in[1]);
    auto c = as_array(s.in[2]);
    for (Eigen::Index i = 0; i < y.size(); ++i)
      y[i] = a[i] != 0.0f ? b[i] : c[i]; // NaN != 0: a NaN condition picks a
    store(m, r.out, s.out, s);
    return;
  }
  auto b = as_array(s.in[1]);
  switch (r.fn) {
  case math_fn::add:
    y = a + b;
    break;
  case math_fn::sub:
    y = a - b;
    break;
  case math_fn::mul:
    y = a * b;
    break;
  case math_fn::div:
    y = a / b;
    break;
  case math_fn::max:
    for (Eigen::Index i = 0; i < y.size(); ++i)
      y[i] = nan_max(a[i], b[i]);
    break;
  case math_fn::min:
    for (Eigen::Index i = 0; i < y.size(); ++i)
      y[i] = nan_min(a[i], b[i]);
    break;
  default:
    if (!is_mask_op(r.fn))
      throw std::logic_error("run_elementwise: not a binary fn");
    for (Eigen::Index i = 0; i < y.size(); ++i)
      y[i] = compare(r.fn, a[i], b[i]) ? 1.0f : 0.0f;
  }
  store(m, r.out, s.out, s);
}

/// arange and full: no input.
void run_generate(const op_record& r, memory_image& m, compute_scratch& s) {
  const uint32_t rows = r.out.rows, cols = r.out.cols;
  s.out.resize(r.out.elements());
  const auto k = static_cast<float>(r.scalar);
  for (uint32_t i = 0; i < rows; ++i)
    for (uint32_t j = 0; j < cols; ++j)
      s.out[uint64_t{i} * cols + j] =
        r.fn == math_fn::full ? k : k + static_cast<float>(r.axis == 1 ? j : i);
  store(m, r.out, s.out, s);
}

/// Whether `x` beats the best so far for argmax (argmin with `is_max`
/// false): strictly larger, or the first NaN.
bool beats(bool is_max, float x, float best) {
  if (std::isnan(best))
    return false;
  if (std::isnan(x))
    return true;
  return is_max ? x > best : x < best;
}

/// argmax / argmin along the axis (first index on ties), cumsum along it.
void run_scan(const op_record& r, memory_image& m, compute_scratch& s) {
  const auto& v = r.inputs[0];
  load(m, v, s.in[0], s);
  s.out.resize(r.out.elements());
  const uint32_t lines = r.axis == 1 ? v.rows : v.cols; // reduced independently
  const uint32_t len = r.axis == 1 ? v.cols : v.rows;
  auto at = [&](uint32_t line, uint32_t i) {
    return uint64_t{r.axis == 1 ? line : i} * v.cols + (r.axis == 1 ? i : line);
  };
  for (uint32_t line = 0; line < lines; ++line) {
    if (r.fn == math_fn::cumsum) {
      float acc = 0;
      for (uint32_t i = 0; i < len; ++i) {
        acc += s.in[0][at(line, i)];
        s.out[at(line, i)] = acc;
      }
      continue;
    }
    const bool is_max = r.fn == math_fn::argmax;
    uint32_t best = 0;
    for (uint32_t i = 1; i < len; ++i)
      if (beats(is_max, s.in[0][at(line, i)], s.in[0][at(line, best)]))
        best = i;
    s.out[line] = static_cast<float>(best);
  }
  store(m, r.out, s.out, s);
}

void run_reduction(const op_record& r, memory_image& m, compute_scratch& s) {
  const auto& v = r.inputs[0];
  load(m, v, s.in[0], s);
  Eigen::Map<const row_matrix, Eigen::Aligned16> x(s.in[0].data(), v.rows, v.cols);
  s.out.resize(r.out.elements());
  Eigen::Map<row_matrix, Eigen::Aligned16> y(s.out.data(), r.out.rows, r.out.cols);
  if (r.fn == math_fn::sum) {
    if (r.axis == 1)
      y = x.rowwise().sum();
    else
      y = x.colwise().sum();
  } else {
    const bool is_max = r.fn == math_fn::row_max;
    const float start = is_max ? -std::numeric_limits<float>::infinity()
                               : std::numeric_limits<float>::infinity();
    y.setConstant(start);
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index j = 0; j < x.cols(); ++j) {
        float& acc = r.axis == 1 ? y(i, 0) : y(0, j);
        acc = is_max ? nan_max(acc, x(i, j)) : nan_min(acc, x(i, j));
      }
  }
  store(m, r.out, s.out, s);
}

void run_memory(const op_record& r, memory_image& m, compute_scratch& s) {
  const auto& in = r.inputs[0];
  if (in.type == r.out.type) { // a plain byte copy: exact for every dtype
    s.bytes.resize(in.elements() * dtype_bytes(in.type));
    if (in.contiguous())
      m.read(in.address, s.bytes);
    else
      m.read_rows(in.address, in.row_stride, in.rows, in.row_bytes(), s.bytes);
    store_bytes(m, r.out, s.bytes);
    return;
  }
  load(m, in, s.in[0], s);
  store(m, r.out, s.in[0], s);
}

} // namespace

uint64_t execute(const op_record& r, memory_image& m, compute_scratch& scratch) {
  switch (r.kind) {
  case op_kind::memory:
    run_memory(r, m, scratch);
    break;
  case op_kind::gemm:
    run_gemm(r, m, scratch);
    break;
  case op_kind::math:
    if (is_atomic(r.fn))
      run_atomic(r, m, scratch.bytes);
    else if (is_reduction(r.fn))
      run_reduction(r, m, scratch);
    else if (is_arg_reduction(r.fn) || r.fn == math_fn::cumsum)
      run_scan(r, m, scratch);
    else if (arity(r.fn) == 0)
      run_generate(r, m, scratch);
    else if (arity(r.fn) == 1)
      run_unary(r, m, scratch);
    else
      run_elementwise(r, m, scratch);
    break;
  }
  return flops(r);
}

} // namespace kb
