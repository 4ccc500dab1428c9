// tl::context's views, index reductions and scans (kernels/tl.hpp,
// docs/adr/0026). A view (slice, reshape) is a new tl::tensor over the
// same TCM block: no command, no copy; the op log names it as a strided
// tensor_view. It holds its tensor's state, so the block lives as long as
// any view of it, and hands the commands that used it to that state when it
// goes (the block is reused only once they are all done). argmax, argmin
// and cumsum are MATH commands timed like the reductions.
#include "runtime/kernel/kernel_context.hpp"

#include "runtime/kernel/tensor_state.hpp"

#include <fmt/format.h>

namespace kb {

namespace {

/// A view of `root`'s block: rows x cols at `address`, rows `row_stride`
/// bytes apart (0: packed); Phase 1 data copied from `of`, which it views.
std::shared_ptr<tl::tensor::state> view_state(const std::shared_ptr<const tl::tensor::state>& root,
                                              const tl::tensor::state& of, uint64_t address,
                                              uint32_t rows, uint32_t cols, uint64_t row_stride) {
  auto v = std::make_shared<tl::tensor::state>();
  v->rows = rows;
  v->cols = cols;
  v->type = of.type;
  v->address = address;
  const uint64_t row_bytes = uint64_t{cols} * dtype_bytes(of.type);
  v->row_stride = rows <= 1 || row_stride == row_bytes ? 0 : row_stride;
  v->owner = of.owner;
  v->writer = of.writer;
  v->ready = of.ready;
  if (of.ready) { // the elements it sees, packed
    const tensor_view src = of.view();
    const uint32_t e = dtype_bytes(of.type);
    v->data.resize(uint64_t{rows} * row_bytes);
    const uint64_t first = address - src.address; // bytes into `of`'s view
    for (uint32_t r = 0; r < rows; ++r) {
      // element index in `of`'s packed data of this row's first element
      const uint64_t at = first + uint64_t{r} * row_stride;
      const uint64_t of_row = at / src.row_stride, of_col = (at % src.row_stride) / e;
      std::copy_n(of.data.begin() + static_cast<ptrdiff_t>((of_row * of.cols + of_col) * e),
                  row_bytes, v->data.begin() + static_cast<ptrdiff_t>(r * row_bytes));
    }
  }
  v->root = root;
  v->release = [root](std::vector<uint64_t> users) {
    root->users.insert(root->users.end(), users.begin(), users.end());
  };
  return v;
}

/// The tensor whose block `t` is (itself if it is not a view).
std::shared_ptr<const tl::tensor::state> root_of(const tl::tensor& t) {
  return t.raw()->root ? t.raw()->root : t.share();
}

} // namespace

tl::tensor kernel_context::slice(const tl::tensor& x, uint32_t row, uint32_t col, uint32_t rows,
                                 uint32_t cols) {
  const tl_call call(*this, "tl.slice");
  const auto& s = operand(x, "slice");
  if (rows == 0 || cols == 0 || row >= s.rows || col >= s.cols || rows > s.rows - row ||
      cols > s.cols - col)
    fail(fmt::format("slice of rows [{}, +{}) and columns [{}, +{}) of a {}x{} tensor: it must "
                     "be non-empty and inside",
                     row, rows, col, cols, s.rows, s.cols));
  const tensor_view v = s.view().block(row, col, rows, cols);
  return tl::tensor(view_state(root_of(x), s, v.address, rows, cols, v.row_stride));
}

tl::tensor kernel_context::reshape(const tl::tensor& x, uint32_t rows, uint32_t cols) {
  const tl_call call(*this, "tl.reshape");
  const auto& s = operand(x, "reshape");
  if (s.row_stride != 0)
    fail(fmt::format("reshape of a non-contiguous {}x{} view (rows {} B apart, {} B each): "
                     "only a tensor or a slice of whole rows can be reshaped",
                     s.rows, s.cols, s.row_stride, uint64_t{s.cols} * dtype_bytes(s.type)));
  if (uint64_t{rows} * cols != uint64_t{s.rows} * s.cols)
    fail(fmt::format("reshape of a {}x{} tensor ({} elements) to {}x{} ({} elements)", s.rows,
                     s.cols, uint64_t{s.rows} * s.cols, rows, cols, uint64_t{rows} * cols));
  auto v = view_state(root_of(x), s, s.address, 1, 1, 0);
  v->rows = rows;
  v->cols = cols;
  v->data = s.data; // the same bytes, row-major either way
  return tl::tensor(std::move(v));
}

tl::tensor kernel_context::arg_reduce(math_fn f, const tl::tensor& x, int axis) {
  const tl_call call(*this, "tl.arg_reduce");
  const auto& s = operand(x, std::string(to_string(f)));
  if (!is_arg_reduction(f))
    fail(fmt::format("{} is not an index reduction (argmax, argmin)", to_string(f)));
  if (axis != 0 && axis != 1)
    fail(fmt::format("{} along axis {}: a 2-D tensor has axes 0 and 1", to_string(f), axis));
  op_record op;
  op.fn = f;
  op.axis = axis;
  return math_command(std::move(op), axis == 1 ? s.rows : 1, axis == 1 ? 1 : s.cols, dtype::i32,
                      {&s}, false);
}

tl::tensor kernel_context::cumsum(const tl::tensor& x, int axis) {
  const tl_call call(*this, "tl.cumsum");
  const auto& s = operand(x, "cumsum");
  if (axis != 0 && axis != 1)
    fail(fmt::format("cumsum along axis {}: a 2-D tensor has axes 0 and 1", axis));
  op_record op;
  op.fn = math_fn::cumsum;
  op.axis = axis;
  return math_command(std::move(op), s.rows, s.cols, dtype::f32, {&s}, false);
}

} // namespace kb
