#include "runtime/data/op_record.hpp"

#include <fmt/format.h>

#include <array>

namespace kb {

namespace {

constexpr std::array<std::string_view, 3> kind_names{"memory", "gemm", "math"};

constexpr std::array<std::string_view, math_fn_count> fn_names{
  "exp", "log", "relu", "rsqrt", "sqrt", "neg", "abs", "recip", "tanh",
  "add", "sub", "mul", "div", "max", "min",
  "where",
  "scale", "add_scalar",
  "sum", "row_max", "row_min",
  "cast",
  "arange", "full",
  "lt", "le", "gt", "ge", "eq", "ne",
  "logical_and", "logical_or", "logical_not",
  "argmax", "argmin", "cumsum",
  "atomic_add", "atomic_max",
};

std::string shape(const tensor_view& v) { return fmt::format("{}x{}", v.rows, v.cols); }

/// Whether an input of shape `in` broadcasts to `out` (same, 1 x cols,
/// rows x 1, or 1 x 1).
bool broadcasts(const tensor_view& in, const tensor_view& out) {
  const bool rows_ok = in.rows == out.rows || in.rows == 1;
  const bool cols_ok = in.cols == out.cols || in.cols == 1;
  return rows_ok && cols_ok;
}

std::string check_math(const op_record& r) {
  const auto& in = r.inputs;
  const unsigned want = arity(r.fn);
  if (in.size() != want)
    return fmt::format("math {} takes {} input{}, the record has {}", to_string(r.fn), want,
                       want == 1 ? "" : "s", in.size());
  if (is_atomic(r.fn)) {
    if (!(in[0] == r.out))
      return fmt::format("{}: input 0 must be out itself (the bytes it updates)", to_string(r.fn));
    if (in[1].rows != r.out.rows || in[1].cols != r.out.cols || in[1].type != r.out.type)
      return fmt::format("{}: the operand {} {} differs from out {} {}", to_string(r.fn),
                         shape(in[1]), to_string(in[1].type), shape(r.out), to_string(r.out.type));
    if (r.out.type != dtype::f32 && r.out.type != dtype::i32)
      return fmt::format("{} works on f32 or i32 elements, not {}", to_string(r.fn),
                         to_string(r.out.type));
    return {};
  }
  if (want == 0 || r.fn == math_fn::cumsum) {
    if (r.axis != 0 && r.axis != 1)
      return fmt::format("{} runs along axis 0 or 1, not {}", to_string(r.fn), r.axis);
    if (want == 1 && (in[0].rows != r.out.rows || in[0].cols != r.out.cols))
      return fmt::format("{}: input {} and out {} differ in shape", to_string(r.fn), shape(in[0]),
                         shape(r.out));
    return {};
  }
  if (is_reduction(r.fn) || is_arg_reduction(r.fn)) {
    if (r.axis != 0 && r.axis != 1)
      return fmt::format("{} reduces along axis 0 or 1, not {}", to_string(r.fn), r.axis);
    const uint32_t rows = r.axis == 1 ? in[0].rows : 1;
    const uint32_t cols = r.axis == 1 ? 1 : in[0].cols;
    if (r.out.rows != rows || r.out.cols != cols)
      return fmt::format("{} along axis {} of a {} input gives {}x{}, out is {}", to_string(r.fn),
                         r.axis, shape(in[0]), rows, cols, shape(r.out));
    return {};
  }
  if (want == 1) {
    if (in[0].rows != r.out.rows || in[0].cols != r.out.cols)
      return fmt::format("{}: input {} and out {} differ in shape", to_string(r.fn), shape(in[0]),
                         shape(r.out));
    return {};
  }
  for (size_t i = 0; i < in.size(); ++i)
    if (!broadcasts(in[i], r.out))
      return fmt::format("{}: input {} of shape {} does not broadcast to out {} (same shape, "
                         "1x{}, {}x1 or 1x1)",
                         to_string(r.fn), i, shape(in[i]), shape(r.out), r.out.cols, r.out.rows);
  return {};
}

} // namespace

std::string_view to_string(op_kind k) {
  const auto i = static_cast<size_t>(k);
  return i < kind_names.size() ? kind_names[i] : "unknown";
}

std::optional<op_kind> parse_op_kind(std::string_view name) {
  for (size_t i = 0; i < kind_names.size(); ++i)
    if (kind_names[i] == name)
      return static_cast<op_kind>(i);
  return std::nullopt;
}

std::string_view to_string(math_fn f) {
  const auto i = static_cast<size_t>(f);
  return i < fn_names.size() ? fn_names[i] : "unknown";
}

std::optional<math_fn> parse_math_fn(std::string_view name) {
  for (size_t i = 0; i < fn_names.size(); ++i)
    if (fn_names[i] == name)
      return static_cast<math_fn>(i);
  return std::nullopt;
}

unsigned arity(math_fn f) {
  switch (f) {
  case math_fn::add:
  case math_fn::sub:
  case math_fn::mul:
  case math_fn::div:
  case math_fn::max:
  case math_fn::min:
  case math_fn::lt:
  case math_fn::le:
  case math_fn::gt:
  case math_fn::ge:
  case math_fn::eq:
  case math_fn::ne:
  case math_fn::logical_and:
  case math_fn::logical_or:
  case math_fn::atomic_add:
  case math_fn::atomic_max:
    return 2;
  case math_fn::where:
    return 3;
  case math_fn::arange:
  case math_fn::full:
    return 0;
  default:
    return 1;
  }
}

bool is_reduction(math_fn f) {
  return f == math_fn::sum || f == math_fn::row_max || f == math_fn::row_min;
}

bool is_atomic(math_fn f) { return f == math_fn::atomic_add || f == math_fn::atomic_max; }

bool is_arg_reduction(math_fn f) { return f == math_fn::argmax || f == math_fn::argmin; }

bool is_mask_op(math_fn f) {
  return static_cast<unsigned>(f) >= static_cast<unsigned>(math_fn::lt) &&
         static_cast<unsigned>(f) <= static_cast<unsigned>(math_fn::logical_not);
}

std::string check(const op_record& r) {
  if (r.t_end_ps < r.t_start_ps)
    return fmt::format("t_end {} ps is before t_start {} ps", r.t_end_ps, r.t_start_ps);
  if (static_cast<size_t>(r.kind) >= kind_names.size())
    return fmt::format("unknown op kind {}", static_cast<unsigned>(r.kind));
  for (size_t i = 0; i < r.inputs.size(); ++i)
    if (auto e = check_view(r.inputs[i]); !e.empty())
      return fmt::format("input {}: {}", i, e);
  if (auto e = check_view(r.out); !e.empty())
    return "out: " + e;
  switch (r.kind) {
  case op_kind::memory:
    if (r.inputs.size() != 1)
      return fmt::format("a memory op takes 1 input, the record has {}", r.inputs.size());
    if (r.inputs[0].rows != r.out.rows || r.inputs[0].cols != r.out.cols)
      return fmt::format("memory op copies {} into {}: the shapes differ", shape(r.inputs[0]),
                         shape(r.out));
    return {};
  case op_kind::gemm: {
    if (r.inputs.size() != 2)
      return fmt::format("a gemm takes 2 inputs (a, b), the record has {}", r.inputs.size());
    const auto& a = r.inputs[0];
    const auto& b = r.inputs[1];
    const uint32_t am = r.transpose_a ? a.cols : a.rows, ak = r.transpose_a ? a.rows : a.cols;
    const uint32_t bk = r.transpose_b ? b.cols : b.rows, bn = r.transpose_b ? b.rows : b.cols;
    if (ak != bk || am != r.out.rows || bn != r.out.cols)
      return fmt::format("gemm shapes do not chain: a{} {} * b{} {} -> out {}",
                         r.transpose_a ? "^T" : "", shape(a), r.transpose_b ? "^T" : "", shape(b),
                         shape(r.out));
    return {};
  }
  case op_kind::math:
    if (static_cast<unsigned>(r.fn) >= math_fn_count)
      return fmt::format("unknown math fn {}", static_cast<unsigned>(r.fn));
    return check_math(r);
  }
  return "unknown op kind";
}

std::string describe(const op_record& r) {
  return fmt::format("op {} ({} {})", r.id, r.component, r.op_name);
}

uint64_t flops(const op_record& r) {
  switch (r.kind) {
  case op_kind::memory:
    return 0;
  case op_kind::gemm:
    if (r.inputs.size() != 2)
      return 0;
    return 2 * r.out.elements() * (r.transpose_a ? r.inputs[0].rows : r.inputs[0].cols) +
           (r.accumulate ? r.out.elements() : 0);
  case op_kind::math:
    if (r.fn == math_fn::cast || r.fn == math_fn::full || r.fn == math_fn::arange)
      return 0;
    if (is_reduction(r.fn) || is_arg_reduction(r.fn) || r.fn == math_fn::cumsum)
      return r.inputs.empty() ? 0 : r.inputs[0].elements();
    return r.out.elements();
  }
  return 0;
}

std::vector<tensor_view> reads(const op_record& r) {
  std::vector<tensor_view> v = r.inputs;
  if (r.kind == op_kind::gemm && r.accumulate)
    v.push_back(r.out);
  return v;
}

} // namespace kb
