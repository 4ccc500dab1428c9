// tl::context's compute side (kernels/tl.hpp): each op on TCM tensors is one
// command on the PE's GEMM or MATH unit whose result is a new, pending TCM
// tensor (computed by the Phase 2 replay).
#include "runtime/kernel/kernel_context.hpp"

#include "kernels/tensor_state.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kb {

const tl::tensor::state& kernel_context::operand(const tl::tensor& t,
                                                 const std::string& what) const {
  if (!t.raw())
    fail(fmt::format("{}: an operand that holds nothing (a default-constructed tl::tensor)", what));
  return *t.raw();
}

tl::tensor kernel_context::compute(op_record op, uint32_t rows, uint32_t cols, dtype type,
                                   math_op cost, uint64_t elements,
                                   std::vector<uint64_t> deps) {
  auto s = allocate(rows, cols, type);
  op.out = packed_view(s->address, rows, cols, type);
  if (const std::string bad = check(op); !bad.empty())
    fail(fmt::format("{}: {}", op.op_name, bad));
  stage st;
  st.component = site_.pe + (op.kind == op_kind::gemm ? ".pe_gemm" : ".pe_math");
  st.type = op.kind == op_kind::gemm ? stage_type::gemm : stage_type::math;
  st.params.tm = rows;
  st.params.tn = cols;
  st.params.in_dtype = op.inputs.front().type;
  st.params.out_dtype = type;
  st.params.last_k = true;
  if (op.kind == op_kind::gemm) {
    st.params.tk = op.inputs[0].cols;
  } else {
    st.params.elements = elements;
    st.params.op = cost;
  }
  const uint64_t id = port_.issue(simple_command{st, std::move(op)}, {}, deps);
  s->users.push_back(id);
  s->writer = id;
  // The TCM marks the block: another PE's load of it fails by name (issue 28).
  port_.mark_pending(s->address, uint64_t{rows} * cols * dtype_bytes(type), id);
  return tl::tensor(std::move(s));
}

namespace {

/// The PE_MATH timing class of `f` (DESIGN §4 op_cost: 4 for the
/// transcendental ones, 1 for the rest).
math_op cost_of(math_fn f) {
  switch (f) {
  case math_fn::exp:
  case math_fn::log:
  case math_fn::tanh:
  case math_fn::sqrt:
  case math_fn::div:
  case math_fn::recip:
    return math_op::exp;
  case math_fn::rsqrt:
    return math_op::rsqrt;
  case math_fn::relu:
    return math_op::relu;
  case math_fn::mul:
  case math_fn::scale:
    return math_op::mul;
  default:
    return math_op::add;
  }
}

tensor_view view_of(const tl::tensor::state& s) { return s.view(); }

} // namespace

tl::tensor kernel_context::dot(const tl::tensor& a, const tl::tensor& b, dtype out) {
  const auto& x = operand(a, "dot");
  const auto& y = operand(b, "dot");
  if (x.cols != y.rows)
    fail(fmt::format("dot of {}x{} and {}x{}: the inner dimensions differ", x.rows, x.cols,
                     y.rows, y.cols));
  if (x.type != y.type)
    fail(fmt::format("dot of {} and {}: cast one first", to_string(x.type), to_string(y.type)));
  op_record op;
  op.kind = op_kind::gemm;
  op.op_name = fmt::format("dot_{}", to_string(x.type));
  op.inputs = {view_of(x), view_of(y)};
  auto t = compute(std::move(op), x.rows, y.cols, out, math_op::add, 0, producers({&x, &y}));
  x.users.push_back(t.raw()->users.back());
  y.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::unary(math_fn f, const tl::tensor& x, double scalar) {
  const auto& s = operand(x, std::string(to_string(f)));
  if (arity(f) != 1 || is_reduction(f) || f == math_fn::cast)
    fail(fmt::format("{} is not a unary op (use binary, reduce or cast)", to_string(f)));
  op_record op;
  op.kind = op_kind::math;
  op.fn = f;
  op.op_name = std::string(to_string(f));
  op.scalar = scalar;
  op.inputs = {view_of(s)};
  auto t = compute(std::move(op), s.rows, s.cols, dtype::f32, cost_of(f), uint64_t{s.rows} * s.cols,
                   producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::binary(math_fn f, const tl::tensor& a, const tl::tensor& b) {
  if (arity(f) != 2)
    fail(fmt::format("{} is not a binary op", to_string(f)));
  return where_like(f, {&a, &b});
}

tl::tensor kernel_context::where(const tl::tensor& cond, const tl::tensor& a, const tl::tensor& b) {
  return where_like(math_fn::where, {&cond, &a, &b});
}

tl::tensor kernel_context::where_like(math_fn f, std::vector<const tl::tensor*> in) {
  const std::string name(to_string(f));
  uint32_t rows = 1, cols = 1;
  for (const auto* t : in) {
    const auto& s = operand(*t, name);
    rows = std::max(rows, s.rows);
    cols = std::max(cols, s.cols);
  }
  op_record op;
  op.kind = op_kind::math;
  op.fn = f;
  op.op_name = name;
  for (const auto* t : in) {
    const auto& s = *t->raw();
    if ((s.rows != rows && s.rows != 1) || (s.cols != cols && s.cols != 1))
      fail(fmt::format("{}: a {}x{} operand does not broadcast to {}x{}", name, s.rows, s.cols,
                       rows, cols));
    op.inputs.push_back(view_of(s));
  }
  std::vector<uint64_t> deps;
  for (const auto* x : in)
    for (uint64_t d : producers({x->raw()}))
      if (std::find(deps.begin(), deps.end(), d) == deps.end())
        deps.push_back(d);
  auto t = compute(std::move(op), rows, cols, dtype::f32, cost_of(f), uint64_t{rows} * cols,
                   std::move(deps));
  for (const auto* x : in)
    x->raw()->users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::reduce(math_fn f, const tl::tensor& x, int axis) {
  const auto& s = operand(x, std::string(to_string(f)));
  if (!is_reduction(f))
    fail(fmt::format("{} is not a reduction (sum, row_max, row_min)", to_string(f)));
  if (axis != 0 && axis != 1)
    fail(fmt::format("{} along axis {}: a 2-D tensor has axes 0 and 1", to_string(f), axis));
  op_record op;
  op.kind = op_kind::math;
  op.fn = f;
  op.op_name = std::string(to_string(f));
  op.axis = axis;
  op.inputs = {view_of(s)};
  auto t = compute(std::move(op), axis == 1 ? s.rows : 1, axis == 1 ? 1 : s.cols, dtype::f32,
                   cost_of(f), uint64_t{s.rows} * s.cols, producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::cast(const tl::tensor& x, dtype to) {
  const auto& s = operand(x, "cast");
  op_record op;
  op.kind = op_kind::math;
  op.fn = math_fn::cast;
  op.op_name = "cast";
  op.inputs = {view_of(s)};
  auto t = compute(std::move(op), s.rows, s.cols, to, math_op::add, uint64_t{s.rows} * s.cols,
                   producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

} // namespace kb
