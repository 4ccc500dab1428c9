// tl::context's compute side (kernels/tl.hpp): each op on TCM tensors is one
// command on the PE's GEMM or MATH unit whose result is a new, pending TCM
// tensor (computed by the Phase 2 replay).
#include "runtime/kernel/kernel_context.hpp"

#include "runtime/kernel/kernel_commands.hpp"
#include "runtime/kernel/tensor_state.hpp"

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
  issue_compute(std::move(op), *s, cost, elements, std::move(deps));
  return tl::tensor(std::move(s));
}

void kernel_context::issue_compute(op_record op, tl::tensor::state& out, math_op cost,
                                   uint64_t elements, std::vector<uint64_t> deps) {
  if (const std::string bad = check(op); !bad.empty())
    fail(fmt::format("{}: {}", op.op_name, bad));
  const dtype in = op.inputs.front().type;
  const stage st =
    op.kind == op_kind::gemm
      ? gemm_stage(out.rows, out.cols, op.transpose_a ? op.inputs[0].rows : op.inputs[0].cols,
                   in, out.type)
      : math_stage(out.rows, out.cols, in, out.type, elements, cost);
  const uint64_t id = port_.issue(simple_command{st, std::move(op)}, {}, deps);
  out.users.push_back(id);
  out.writer = id;
  // The TCM marks the block: another PE's load of it fails by name (issue 28).
  port_.mark_pending(out.address, uint64_t{out.rows} * out.cols * dtype_bytes(out.type), id);
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

/// The math op `f` of one input, `s`.
op_record one_input(math_fn f, const tl::tensor::state& s) {
  op_record op;
  op.kind = op_kind::math;
  op.fn = f;
  op.op_name = std::string(to_string(f));
  op.inputs = {view_of(s)};
  return op;
}

} // namespace

tl::tensor kernel_context::dot(const tl::tensor& a, const tl::tensor& b, dtype out) {
  const tl_call call(*this, "tl.dot");
  return dot(a, b, tl::dot_opts{}, out);
}

tl::tensor kernel_context::dot(const tl::tensor& a, const tl::tensor& b, tl::dot_opts o,
                               dtype out) {
  const tl_call call(*this, "tl.dot");
  const auto& x = operand(a, "dot");
  const auto& y = operand(b, "dot");
  op_record op = dot_op(x, y, o);
  const uint32_t m = o.trans_a ? x.cols : x.rows, n = o.trans_b ? y.rows : y.cols;
  auto t = compute(std::move(op), m, n, out, math_op::add, 0, producers({&x, &y}));
  x.users.push_back(t.raw()->users.back());
  y.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::dot(const tl::tensor& a, const tl::tensor& b, const tl::tensor& acc,
                               tl::dot_opts o) {
  const tl_call call(*this, "tl.dot");
  const auto& x = operand(a, "dot");
  const auto& y = operand(b, "dot");
  const auto& c = operand(acc, "dot (its accumulator)");
  op_record op = dot_op(x, y, o);
  const uint32_t m = o.trans_a ? x.cols : x.rows, n = o.trans_b ? y.rows : y.cols;
  if (c.rows != m || c.cols != n)
    fail(fmt::format("dot into a {}x{} accumulator: the product is {}x{}", c.rows, c.cols, m, n));
  const bool integer = x.type == dtype::i8 || x.type == dtype::i32;
  const dtype want = integer ? dtype::i32 : dtype::f32;
  if (c.type != want)
    fail(fmt::format("dot of {} into a {} accumulator: it must be {} (tl.zeros or tl.cast)",
                     to_string(x.type), to_string(c.type), to_string(want)));
  if (&c == &x || &c == &y)
    fail("dot: the accumulator is also an operand");
  op.accumulate = true;
  op.out = view_of(c);
  // It reads and rewrites the accumulator in place: after whatever wrote it
  // and whatever still reads it (a store of it, another op on it).
  std::vector<uint64_t> deps = producers({&x, &y, &c});
  for (const uint64_t u : c.users)
    if (!port_.done(u) && std::find(deps.begin(), deps.end(), u) == deps.end())
      deps.push_back(u);
  // The accumulator's block is the runtime's: the kernel holds it const.
  auto& out = const_cast<tl::tensor::state&>(c);
  out.ready = false; // its bytes are a compute result from now on
  out.data.clear();
  issue_compute(std::move(op), out, math_op::add, 0, std::move(deps));
  x.users.push_back(out.users.back());
  y.users.push_back(out.users.back());
  return acc;
}

op_record kernel_context::dot_op(const tl::tensor::state& x, const tl::tensor::state& y,
                                 tl::dot_opts o) const {
  const uint32_t xk = o.trans_a ? x.rows : x.cols, yk = o.trans_b ? y.cols : y.rows;
  if (xk != yk)
    fail(fmt::format("dot of {}x{}{} and {}x{}{}: the inner dimensions differ ({} and {})",
                     x.rows, x.cols, o.trans_a ? " (transposed)" : "", y.rows, y.cols,
                     o.trans_b ? " (transposed)" : "", xk, yk));
  if (x.type != y.type)
    fail(fmt::format("dot of {} and {}: cast one first", to_string(x.type), to_string(y.type)));
  op_record op;
  op.kind = op_kind::gemm;
  op.op_name = fmt::format("dot_{}", to_string(x.type));
  op.inputs = {view_of(x), view_of(y)};
  op.transpose_a = o.trans_a;
  op.transpose_b = o.trans_b;
  return op;
}

tl::tensor kernel_context::unary(math_fn f, const tl::tensor& x, double scalar) {
  const tl_call call(*this, "tl.unary");
  const auto& s = operand(x, std::string(to_string(f)));
  if (arity(f) != 1 || is_reduction(f) || f == math_fn::cast)
    fail(fmt::format("{} is not a unary op (use binary, reduce or cast)", to_string(f)));
  op_record op = one_input(f, s);
  op.scalar = scalar;
  auto t = compute(std::move(op), s.rows, s.cols, dtype::f32, cost_of(f), uint64_t{s.rows} * s.cols,
                   producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::binary(math_fn f, const tl::tensor& a, const tl::tensor& b) {
  const tl_call call(*this, "tl.binary");
  if (arity(f) != 2)
    fail(fmt::format("{} is not a binary op", to_string(f)));
  return where_like(f, {&a, &b});
}

tl::tensor kernel_context::where(const tl::tensor& cond, const tl::tensor& a, const tl::tensor& b) {
  const tl_call call(*this, "tl.where");
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
  const tl_call call(*this, "tl.reduce");
  const auto& s = operand(x, std::string(to_string(f)));
  if (!is_reduction(f))
    fail(fmt::format("{} is not a reduction (sum, row_max, row_min)", to_string(f)));
  if (axis != 0 && axis != 1)
    fail(fmt::format("{} along axis {}: a 2-D tensor has axes 0 and 1", to_string(f), axis));
  op_record op = one_input(f, s);
  op.axis = axis;
  auto t = compute(std::move(op), axis == 1 ? s.rows : 1, axis == 1 ? 1 : s.cols, dtype::f32,
                   cost_of(f), uint64_t{s.rows} * s.cols, producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::cast(const tl::tensor& x, dtype to) {
  const tl_call call(*this, "tl.cast");
  const auto& s = operand(x, "cast");
  auto t = compute(one_input(math_fn::cast, s), s.rows, s.cols, to, math_op::add, uint64_t{s.rows} * s.cols,
                   producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

} // namespace kb
