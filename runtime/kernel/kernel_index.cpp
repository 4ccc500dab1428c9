// tl::context's index and mask tensors (kernels/tl.hpp, docs/adr/0026):
// arange, full, comparisons and logical ops. Each is one command on the
// PE's MATH unit, recorded in the op log like any compute; when all its
// inputs have their data in Phase 1 its result is computed at once
// ("eager"), by the very function the Phase 2 replay runs, so a mask can
// steer a masked load or store and both passes hold the same values.
#include "runtime/kernel/kernel_context.hpp"

#include "runtime/kernel/kernel_commands.hpp"
#include "runtime/kernel/tensor_state.hpp"
#include "runtime/data/op_compute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace kb {

uint64_t kernel_context::issue_math(op_record op, uint64_t elements,
                                    std::vector<uint64_t> deps) {
  op.kind = op_kind::math;
  if (op.op_name.empty())
    op.op_name = std::string(to_string(op.fn));
  if (const std::string bad = check(op); !bad.empty())
    fail(fmt::format("{}: {}", op.op_name, bad));
  // One cycle per lane-width of elements, as a reduction.
  const stage st =
    math_stage(op.out.rows, op.out.cols, op.inputs.empty() ? op.out.type : op.inputs.front().type,
               op.out.type, elements, math_op::add);
  return port_.issue(simple_command{st, std::move(op)}, {}, deps);
}

tl::tensor kernel_context::math_command(op_record op, uint32_t rows, uint32_t cols, dtype type,
                                        std::vector<const tl::tensor::state*> in, bool eager) {
  auto s = allocate(rows, cols, type);
  op.out = s->view();
  uint64_t elements = op.out.elements();
  std::vector<uint64_t> deps;
  bool have_data = true;
  for (const auto* x : in) {
    op.inputs.push_back(x->view());
    elements = std::max(elements, x->view().elements()); // a reduction reads them all
    have_data = have_data && x->ready;
    for (uint64_t d : producers({x}))
      if (std::find(deps.begin(), deps.end(), d) == deps.end())
        deps.push_back(d);
  }
  op.op_name = std::string(to_string(op.fn));
  op.kind = op_kind::math;
  if (const std::string bad = check(op); !bad.empty())
    fail(fmt::format("{}: {}", op.op_name, bad));
  if (eager && have_data) {
    // The Phase 2 kernel on the inputs' Phase 1 bytes.
    memory_image image;
    compute_scratch scratch;
    for (const auto* x : in)
      store_bytes(image, x->view(), x->data);
    execute(op, image, scratch);
    s->data = load_bytes(image, op.out);
    s->ready = true;
  }
  const uint64_t id = issue_math(op, elements, std::move(deps));
  s->users.push_back(id);
  s->writer = id;
  // The TCM holds no Phase 1 bytes of it: another PE's load fails by name.
  port_.mark_pending(s->address, uint64_t{rows} * cols * dtype_bytes(type), id);
  for (const auto* x : in)
    x->users.push_back(id);
  return tl::tensor(std::move(s));
}

tl::tensor kernel_context::arange(uint32_t n, int32_t start, int axis) {
  const tl_call call(*this, "tl.arange");
  if (n == 0)
    fail("arange(0): a tensor needs at least 1 element");
  if (axis != 0 && axis != 1)
    fail(fmt::format("arange along axis {}: 1 gives a 1 x n row, 0 an n x 1 column", axis));
  // Computed in f32: exact while every value is within 2^24.
  const int64_t last = int64_t{start} + n - 1;
  if (std::max(std::abs(int64_t{start}), std::abs(last)) > (int64_t{1} << 24))
    fail(fmt::format("arange({}, start {}): values beyond 2^24 are not exact in the f32 "
                     "arithmetic of MATH ops",
                     n, start));
  op_record op;
  op.fn = math_fn::arange;
  op.scalar = start;
  op.axis = axis;
  return math_command(std::move(op), axis == 1 ? 1 : n, axis == 1 ? n : 1, dtype::i32, {}, true);
}

tl::tensor kernel_context::full(uint32_t rows, uint32_t cols, double value, dtype type) {
  const tl_call call(*this, "tl.full");
  if (rows == 0 || cols == 0)
    fail(fmt::format("full of {}x{}: rows and cols must be at least 1", rows, cols));
  op_record op;
  op.fn = math_fn::full;
  op.scalar = value;
  return math_command(std::move(op), rows, cols, type, {}, true);
}

tl::tensor kernel_context::compare(math_fn f, const tl::tensor& a, const tl::tensor& b) {
  const tl_call call(*this, "tl.compare");
  const std::string name(to_string(f));
  if (!is_mask_op(f) || arity(f) != 2)
    fail(fmt::format("{} is not a comparison (lt, le, gt, ge, eq, ne) or logical_and/or", name));
  const auto& x = operand(a, name);
  const auto& y = operand(b, name);
  const uint32_t rows = std::max(x.rows, y.rows), cols = std::max(x.cols, y.cols);
  for (const auto* s : {&x, &y})
    if ((s->rows != rows && s->rows != 1) || (s->cols != cols && s->cols != 1))
      fail(fmt::format("{}: a {}x{} operand does not broadcast to {}x{}", name, s->rows, s->cols,
                       rows, cols));
  op_record op;
  op.fn = f;
  return math_command(std::move(op), rows, cols, dtype::i8, {&x, &y}, true);
}

tl::tensor kernel_context::logical_not(const tl::tensor& x) {
  const tl_call call(*this, "tl.logical_not");
  const auto& s = operand(x, "logical_not");
  op_record op;
  op.fn = math_fn::logical_not;
  return math_command(std::move(op), s.rows, s.cols, dtype::i8, {&s}, true);
}

} // namespace kb
