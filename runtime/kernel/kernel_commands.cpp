#include "runtime/kernel/kernel_commands.hpp"

#include <string>

namespace kb {

stage dma_stage(bool read, uint64_t global, uint64_t stride, const tensor_view& local) {
  stage st;
  st.type = read ? stage_type::dma_read : stage_type::dma_write;
  st.unit = unit_role::dma;
  st.params.operand = read ? 0 : 'C';
  st.params.address = global;
  st.params.row_stride_bytes = stride;
  st.params.rows = local.rows;
  st.params.row_bytes = local.row_bytes();
  st.params.bytes = local.rows * local.row_bytes();
  st.params.tm = local.rows;
  st.params.tn = local.cols;
  st.params.in_dtype = st.params.out_dtype = local.type;
  st.params.local_address = local.address;
  st.params.want_data = read;
  return st;
}

op_record dma_op(bool read, uint64_t global, uint64_t stride, const tensor_view& local,
                 std::optional<math_fn> atomic) {
  op_record op;
  op.kind = op_kind::memory;
  op.op_name = read ? "dma_read" : "dma_write";
  const tensor_view g{global, local.rows, local.cols, stride, local.type};
  op.inputs = {read ? g : local};
  op.out = read ? local : g;
  if (atomic) { // out = f(out, local), at the memory
    op.kind = op_kind::math;
    op.fn = *atomic;
    op.op_name = std::string(to_string(*atomic));
    op.inputs = {g, local};
  }
  return op;
}

namespace {

/// A compute stage on a rows x cols tile of TCM, `in` read and `out` written
/// (MATH and GEMM share it; a kernel's compute is always its last K step).
stage compute_stage(unit_role unit, stage_type type, uint32_t rows, uint32_t cols, dtype in,
                    dtype out) {
  stage st;
  st.unit = unit;
  st.type = type;
  st.params.tm = rows;
  st.params.tn = cols;
  st.params.in_dtype = in;
  st.params.out_dtype = out;
  st.params.last_k = true;
  return st;
}

} // namespace

stage math_stage(uint32_t rows, uint32_t cols, dtype in, dtype out, uint64_t elements,
                 math_op cost) {
  stage st = compute_stage(unit_role::math, stage_type::math, rows, cols, in, out);
  st.params.elements = elements;
  st.params.op = cost;
  return st;
}

stage gemm_stage(uint32_t rows, uint32_t cols, uint32_t k, dtype in, dtype out) {
  stage st = compute_stage(unit_role::gemm, stage_type::gemm, rows, cols, in, out);
  st.params.tk = k;
  return st;
}

} // namespace kb
