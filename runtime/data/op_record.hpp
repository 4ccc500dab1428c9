#pragma once
// The op record: what Phase 1 logs per data op and Phase 2 replays
// (seed ADR-0020 D5). One record per tile-level op, written by the actor base-class
// hook only (D2).
//
// Semantics (Phase 2 computes in f32 and stores in `out.type`; every input is
// read in full before `out` is written, so `out` may alias an input):
// - memory: inputs[0] -> out, same rows x cols; a plain byte copy when the
//   dtypes match, else converted element by element.
// - gemm: inputs a (tm x tk) and b (tk x tn), out (tm x tn);
//   out = a * b, or out = out + a * b with `accumulate`; f32 accumulation,
//   except integer a and b into an integer out: exact i32 accumulation that
//   wraps on overflow (two's complement), as the hardware's does.
//   With `transpose_a` the view a holds tk x tm and a^T is used (likewise b):
//   a column-major operand is the transpose of a row-major view.
// - math: `fn` on the inputs:
//   unary (exp log relu rsqrt sqrt neg abs recip tanh, scale, add_scalar, cast)
//     take 1 input of out's shape; scale is x * scalar, add_scalar x + scalar,
//     cast only converts the dtype;
//   binary (add sub mul div max min) take 2 inputs, each of out's shape, a
//     1 x cols row (broadcast down the rows), a rows x 1 column (broadcast
//     across) or 1 x 1; max/min propagate NaN like numpy.maximum/minimum;
//   where takes (cond, a, b), each broadcast the same way: cond != 0 picks a;
//   sum / row_max / row_min reduce 1 input along `axis`: axis 1 gives
//     out rows x 1, axis 0 gives out 1 x cols (row_max with axis 0 is the
//     column maximum); NaN propagates.
//   arange and full take no input: arange writes scalar + c (axis 1) or
//     scalar + r (axis 0) at element (r, c); full writes scalar everywhere
//     (out may be a strided view: the masked-off part of a masked load);
//   lt le gt ge eq ne take 2 inputs broadcast like binary ops and write 1
//     where the f32 comparison holds, else 0 (NaN compares false, ne true);
//     logical_and / logical_or (2 inputs) and logical_not (1) treat != 0 as
//     true and write 1 or 0;
//   argmax / argmin reduce like sum along `axis` and write the index of the
//     first largest (smallest) element; a NaN counts as larger (smaller)
//     than every number, the first NaN wins;
//   cumsum: the inclusive running sum along `axis` (axis 1 along a row),
//     out of the input's shape, summed in f32 in index order;
//   atomic_add / atomic_max (docs/adr/0027) take 2 inputs: inputs[0] is out
//     itself (the memory's bytes before the atomic), inputs[1] the operand of
//     out's shape and dtype (f32 or i32); out = inputs[0] + inputs[1] (or
//     max) element by element in out's dtype: f32 adds in f32 (one rounding),
//     i32 adds exactly and wraps, max of i32 is exact, max of f32 propagates
//     NaN (runtime/data/op_atomic). Atomics on the same bytes replay in log
//     order, which is the order the memory applied them in Phase 1.

#include "kernels/math_fn.hpp"
#include "runtime/data/tensor.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// Executor dispatch class (seed ADR-0020 D5 `op_kind`).
enum class op_kind : uint8_t { memory, gemm, math };

std::string_view to_string(op_kind k);
std::optional<op_kind> parse_op_kind(std::string_view name);

/// How many inputs `f` takes (0 for arange and full, else 1, 2 or 3).
unsigned arity(math_fn f);
/// True for sum, row_max, row_min.
bool is_reduction(math_fn f);
/// True for argmax, argmin (reduction-shaped, i32 indices).
bool is_arg_reduction(math_fn f);
/// True for atomic_add, atomic_max (read-modify-writes at a memory).
bool is_atomic(math_fn f);
/// True for the comparisons lt, le, gt, ge, eq, ne and logical_and/or/not
/// (their results are masks: 1 or 0).
bool is_mask_op(math_fn f);

/// One data op (see the header comment for the semantics).
struct op_record {
  uint64_t id = 0;         ///< stable, unique in a log; `deps` refer to it
  uint64_t t_start_ps = 0; ///< service start (seed ADR-0020 D2)
  uint64_t t_end_ps = 0;   ///< service end
  std::string component;   ///< e.g. "sip0.cube0.pe0.pe_gemm"
  op_kind kind = op_kind::memory;
  std::string op_name;     ///< e.g. "dma_read", "gemm_f16", "exp"
  std::vector<tensor_view> inputs;
  tensor_view out;
  bool accumulate = false; ///< gemm: out = out + a * b
  bool transpose_a = false;  ///< gemm: use the transpose of inputs[0]
  bool transpose_b = false;  ///< gemm: use the transpose of inputs[1]
  math_fn fn = math_fn::exp;
  double scalar = 0;       ///< scale / add_scalar
  int axis = 1;            ///< reductions
  std::vector<uint64_t> deps; ///< explicit dependencies (op ids)

  friend bool operator==(const op_record&, const op_record&) = default;
};

/// "" if `r` is well formed, else a description of what is wrong (shape
/// mismatch, wrong input count, bad view, bad axis, t_end before t_start).
std::string check(const op_record& r);

/// "op 17 (sip0.cube0.pe0.pe_gemm gemm_f16)", for error messages.
std::string describe(const op_record& r);

/// Floating-point operations of `r` as Phase 2 counts them: 2*m*n*k for a
/// gemm (plus m*n with accumulate), one per output element for element-wise
/// math, one per input element for a reduction, argmax/argmin and cumsum, 0
/// for memory ops, casts, arange and full.
uint64_t flops(const op_record& r);

/// The byte ranges `r` reads: its inputs, and `out` too for an accumulating gemm.
std::vector<tensor_view> reads(const op_record& r);

} // namespace kb
