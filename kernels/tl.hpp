#pragma once
// The kernel author's API (DESIGN §5, seed ADR-0020 D3). A kernel is a plain C++
// function `void k(tl::context& tl, const Args& args)`; it runs on its own
// fiber inside its PE's PE_CPU actor, so it reads like straight-line code:
//
//   void copy_rows(tl::context& tl, const copy_args& a) {
//     const uint32_t row = tl.program_id();
//     tl::tensor x = tl.load(a.src + row * a.cols, {1, a.cols}); // suspends; has data
//     if (x.at(0, 0) != 0)                                        // branch on loaded data
//       tl.wait(tl.store(a.dst + row * a.cols, x));
//   }
//
// Loads suspend the kernel until their data arrives and return it (Phase 1
// has real data for loads); `load_async` returns a future instead, so the
// next tile's load overlaps this tile's compute. Composite commands (gemm, math) and stores are
// asynchronous: they return a handle to wait on. The results of compute are
// pending in Phase 1 (computed by the Phase 2 replay): touching their data
// is an error. Misuse (out-of-range or misaligned access, TCM overflow, a
// pending tensor's data) throws tl::kernel_error, which ends the run with a
// message naming the kernel and its PE.

#include "kernels/command_args.hpp"
#include "kernels/dtype.hpp"
#include "kernels/math_fn.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb::tl {

using kb::dtype;

/// A kernel's misuse of the API.
class kernel_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Where the blocks of a spread tensor lie (docs/kernels.md "Where tensors
/// live"): element i is in block i / block_elements, which starts at the
/// global address blocks[i / block_elements]. The host owns it for the run.
struct spread_layout {
  uint64_t block_elements = 0;
  std::vector<uint64_t> blocks;
};

/// The host's tensor a pointer came from (docs/kernels.md "When a kernel
/// misbehaves"): every load, store and atomic through the pointer must stay
/// within its elements, and only a writable tensor (an output, a scratch or
/// an in-out input) may be written. The host owns it for the run.
struct tensor_extent {
  std::string name;
  uint64_t elements = 0; ///< rows x cols
  uint32_t rows = 0, cols = 0;
  bool writable = false;
  /// The number of its first element in the host's tensor it is part of
  /// (a launch bound to rows of a program's tensor, "x[64:128]"): a
  /// pointer's `index` counts from that tensor's start.
  uint64_t first = 0;
};

/// A typed pointer into global memory (HBM, SRAM or another PE's TCM).
/// `address` is always where the element it points at lies and `index`
/// is that element's number in its tensor; for a spread tensor `spread`
/// lets `+` step from block to block, so a kernel indexes a spread tensor
/// as it does any other. An access that runs from one block into the next,
/// or past either end of `tensor` (the host's pointers carry it), is a
/// kernel_error: step pointers with `+`, not by changing `address`.
struct ptr {
  uint64_t address = 0;
  dtype type = dtype::f32;
  const spread_layout* spread = nullptr; ///< null: the tensor is contiguous
  uint64_t index = 0;                    ///< the element's number in its tensor
  const tensor_extent* tensor = nullptr; ///< null: a raw address, checked against memory only
  /// `elements` further on.
  ptr operator+(uint64_t elements) const {
    if (spread == nullptr || spread->blocks.empty() || spread->block_elements == 0)
      return {address + elements * dtype_bytes(type), type, spread, index + elements, tensor};
    const uint64_t i = index + elements;
    const uint64_t b = std::min<uint64_t>(i / spread->block_elements, spread->blocks.size() - 1);
    return {spread->blocks[b] + (i - b * spread->block_elements) * dtype_bytes(type), type,
            spread, i, tensor};
  }
};

/// The shape of a 2-D block in global memory: `rows` rows of `cols`
/// elements, `row_stride` elements apart (0: `cols`, packed).
struct block {
  uint32_t rows = 1;
  uint32_t cols = 1;
  uint64_t row_stride = 0;
};

/// Operand layouts of tl.dot.
struct dot_opts {
  bool trans_a = false; ///< a holds k x m: use its transpose
  bool trans_b = false; ///< b holds n x k: use its transpose
};

/// An asynchronous command in flight (a store, a composite gemm or math).
struct handle {
  uint64_t command = 0;
};

/// A tensor in this PE's TCM (AllocatableTCM, freed with its last copy):
/// loaded (its data is there in Phase 1) or a compute result (pending).
class tensor {
public:
  struct state; // runtime/kernel/kernel_context.cpp
  tensor() = default;
  explicit tensor(std::shared_ptr<const state> s) : s_(std::move(s)) {}

  uint32_t rows() const;
  uint32_t cols() const;
  dtype type() const;
  /// Its global (TCM) address.
  uint64_t address() const;
  /// Whether its data exists in Phase 1 (true for loads).
  bool ready() const;
  /// Element (r, c) as a float; kernel_error if pending or out of range.
  float at(uint32_t r, uint32_t c) const;
  /// The bytes, row-major and packed; kernel_error if pending.
  std::span<const uint8_t> bytes() const;

  const state* raw() const { return s_.get(); }
  /// The shared state (a view keeps its tensor's alive with it).
  std::shared_ptr<const state> share() const { return s_; }

private:
  const state& get() const;
  std::shared_ptr<const state> s_;
};

class context;

/// A load in flight (tl.load_async): `get()` suspends until its data has
/// arrived and returns the tensor with it (the same tensor on every call).
/// Dropping a future without `get()` frees its TCM once the load is done.
class future {
public:
  struct state; // runtime/kernel/kernel_context.cpp
  future() = default;
  explicit future(std::shared_ptr<state> s) : s_(std::move(s)) {}

  tensor get();
  /// The load command (tl.wait(f.command()) waits for it too).
  handle command() const;
  bool valid() const { return s_ != nullptr; }
  state* raw() const { return s_.get(); }

private:
  std::shared_ptr<state> s_;
};

class context {
public:
  virtual ~context() = default;

  // -- the grid ---------------------------------------------------------------
  virtual uint32_t program_id(unsigned axis = 0) const = 0;
  virtual uint32_t num_programs(unsigned axis = 0) const = 0;
  /// The kernel's name and its PE ("sip0.cube0.pe3"), for messages.
  virtual const std::string& kernel_name() const = 0;
  virtual const std::string& pe() const = 0;

  // -- memory -------------------------------------------------------------------
  /// DMA of a block of global memory into TCM; suspends until it is there
  /// and returns it with its data.
  virtual tensor load(ptr src, block b) = 0;
  /// The same DMA, without waiting: the kernel goes on (issuing compute on
  /// tensors it already has, more loads) while the block arrives. PE_SCHEDULER
  /// starts it as soon as its DMA queue is free and no earlier store of this
  /// kernel to the same bytes is in flight.
  virtual future load_async(ptr src, block b) = 0;
  /// `f.get()`: suspends until `f`'s data has arrived; its tensor.
  virtual tensor get(const future& f) = 0;
  /// DMA of a TCM tensor to global memory (row stride `row_stride` elements,
  /// 0: packed). A loaded tensor's bytes are written in Phase 1; a pending
  /// one's in Phase 2.
  virtual handle store(ptr dst, const tensor& t, uint64_t row_stride = 0) = 0;

  // -- composite commands (PE_SCHEDULER plans their tiles) ------------------------
  /// C = A x B (+ epilogue) over global memory.
  virtual handle gemm(gemm_plan_args a) = 0;
  /// An element-wise op over global memory.
  virtual handle math(math_plan_args a) = 0;

  // -- compute on TCM tensors (results are pending in Phase 1) --------------------
  // Each is one command on the PE's GEMM or MATH unit; the result is a new
  // TCM tensor (f32 unless said otherwise) that later ops and stores may
  // use at once: PE_SCHEDULER orders them. Shapes: a binary op's second
  // operand may be the same shape, a 1 x cols row, a rows x 1 column or
  // 1 x 1 (broadcast); a reduction along axis 1 gives rows x 1, along 0
  // 1 x cols.
  /// a (m x k) x b (k x n) on PE_GEMM, accumulated in f32 (i32 for
  /// integer operands).
  virtual tensor dot(const tensor& a, const tensor& b, dtype out = dtype::f32) = 0;
  /// op(a) x op(b), op the transpose with `trans_a` / `trans_b` (a tensor
  /// holding k x m read as m x k, as a column-major operand): no copy, the
  /// GEMM unit takes the same time.
  virtual tensor dot(const tensor& a, const tensor& b, dot_opts o, dtype out = dtype::f32) = 0;
  /// acc += op(a) x op(b), in place on PE_GEMM: `acc` (m x n, f32 for float
  /// operands, i32 for integer ones) becomes a pending compute result;
  /// returns it, so `acc = tl.dot(a, b, acc)` reads as in Triton. The GEMM
  /// unit adds into its accumulators at no extra time.
  virtual tensor dot(const tensor& a, const tensor& b, const tensor& acc, dot_opts o = {}) = 0;
  /// A unary math_fn (exp, log, relu, rsqrt, sqrt, neg, abs, recip, tanh,
  /// scale, add_scalar); `scalar` for scale / add_scalar.
  virtual tensor unary(math_fn f, const tensor& x, double scalar = 0) = 0;
  /// A binary math_fn (add, sub, mul, div, max, min).
  virtual tensor binary(math_fn f, const tensor& a, const tensor& b) = 0;
  /// cond != 0 ? a : b, element by element (each broadcast like a binary op).
  virtual tensor where(const tensor& cond, const tensor& a, const tensor& b) = 0;
  /// sum, row_max or row_min along `axis`.
  virtual tensor reduce(math_fn f, const tensor& x, int axis = 1) = 0;
  /// The same values as another dtype.
  virtual tensor cast(const tensor& x, dtype to) = 0;

  tensor exp(const tensor& x) { return unary(math_fn::exp, x); }
  tensor log(const tensor& x) { return unary(math_fn::log, x); }
  tensor relu(const tensor& x) { return unary(math_fn::relu, x); }
  tensor rsqrt(const tensor& x) { return unary(math_fn::rsqrt, x); }
  tensor scale(const tensor& x, double s) { return unary(math_fn::scale, x, s); }
  tensor add_scalar(const tensor& x, double s) { return unary(math_fn::add_scalar, x, s); }
  tensor add(const tensor& a, const tensor& b) { return binary(math_fn::add, a, b); }
  tensor sub(const tensor& a, const tensor& b) { return binary(math_fn::sub, a, b); }
  tensor mul(const tensor& a, const tensor& b) { return binary(math_fn::mul, a, b); }
  tensor div(const tensor& a, const tensor& b) { return binary(math_fn::div, a, b); }
  tensor maximum(const tensor& a, const tensor& b) { return binary(math_fn::max, a, b); }
  tensor sum(const tensor& x, int axis = 1) { return reduce(math_fn::sum, x, axis); }
  tensor max(const tensor& x, int axis = 1) { return reduce(math_fn::row_max, x, axis); }

  // -- index and mask tensors (docs/adr/0026) ---------------------------------------
  // Each is a command on the PE's MATH unit, recorded in the op log; unlike
  // other compute, its result has its data in Phase 1 ("eager") when all its
  // inputs do (index tensors always; comparisons of loaded or index
  // tensors), so it can steer a masked load or store. A mask is an i8 tensor
  // of 1 (live) and 0; any tensor whose nonzero elements mean "live" works
  // as a mask. Comparisons compare in f32 (integers exact up to 2^24).
  /// 0, 1, ..., n-1 plus `start` (i32): a 1 x n row (axis 1) or an n x 1
  /// column (axis 0).
  virtual tensor arange(uint32_t n, int32_t start = 0, int axis = 1) = 0;
  /// A rows x cols tensor of `type` holding `value` (as `type` rounds it).
  virtual tensor full(uint32_t rows, uint32_t cols, double value, dtype type = dtype::f32) = 0;
  tensor zeros(uint32_t rows, uint32_t cols, dtype type = dtype::f32) {
    return full(rows, cols, 0, type);
  }
  /// A comparison (lt, le, gt, ge, eq, ne) or logical_and / logical_or of
  /// two tensors broadcast like a binary op: an i8 mask.
  virtual tensor compare(math_fn f, const tensor& a, const tensor& b) = 0;
  /// 1 where x == 0, else 0 (i8).
  virtual tensor logical_not(const tensor& x) = 0;
  tensor lt(const tensor& a, const tensor& b) { return compare(math_fn::lt, a, b); }
  tensor le(const tensor& a, const tensor& b) { return compare(math_fn::le, a, b); }
  tensor gt(const tensor& a, const tensor& b) { return compare(math_fn::gt, a, b); }
  tensor ge(const tensor& a, const tensor& b) { return compare(math_fn::ge, a, b); }
  tensor eq(const tensor& a, const tensor& b) { return compare(math_fn::eq, a, b); }
  tensor ne(const tensor& a, const tensor& b) { return compare(math_fn::ne, a, b); }
  /// Against a scalar: a 1 x 1 f32 full(value) first (one more MATH command).
  tensor lt(const tensor& a, double b) { return lt(a, full(1, 1, b)); }
  tensor le(const tensor& a, double b) { return le(a, full(1, 1, b)); }
  tensor gt(const tensor& a, double b) { return gt(a, full(1, 1, b)); }
  tensor ge(const tensor& a, double b) { return ge(a, full(1, 1, b)); }
  tensor eq(const tensor& a, double b) { return eq(a, full(1, 1, b)); }
  tensor ne(const tensor& a, double b) { return ne(a, full(1, 1, b)); }
  tensor logical_and(const tensor& a, const tensor& b) {
    return compare(math_fn::logical_and, a, b);
  }
  tensor logical_or(const tensor& a, const tensor& b) {
    return compare(math_fn::logical_or, a, b);
  }

  // -- masked memory (docs/adr/0026) -------------------------------------------------
  // `mask` has its data in Phase 1 (a kernel_error otherwise) and broadcasts
  // to the block like a binary operand. Only live elements are read or
  // written, and only they count as bytes moved: the DMA moves the live runs
  // of each row, one command per group of rows with the same runs (one for
  // the usual ragged edge). A masked-off element is never checked against
  // the memory's bounds.
  /// A load whose masked-off elements hold `other` (written into TCM by a
  /// MATH `full` beside the DMA).
  virtual tensor load(ptr src, block b, const tensor& mask, double other = 0) = 0;
  /// A store of the live elements only; waiting on the handle waits for
  /// all of its DMA commands (a store with no live element issues nothing).
  virtual handle store(ptr dst, const tensor& t, const tensor& mask, uint64_t row_stride = 0) = 0;

  // -- views, index reductions and scans (docs/adr/0026) -----------------------------
  /// Rows [row, row + rows) and columns [col, col + cols) of x, sharing its
  /// TCM block (no copy, no command): keeps x's block alive while it lives.
  virtual tensor slice(const tensor& x, uint32_t row, uint32_t col, uint32_t rows,
                       uint32_t cols) = 0;
  /// x seen as rows x cols (the same elements in row-major order), sharing
  /// its block; x must be contiguous (a slice of whole rows, not columns).
  virtual tensor reshape(const tensor& x, uint32_t rows, uint32_t cols) = 0;
  /// argmax or argmin along `axis` (i32 indices, the first on ties).
  virtual tensor arg_reduce(math_fn f, const tensor& x, int axis = 1) = 0;
  /// The inclusive running sum along `axis` (f32, x's shape).
  virtual tensor cumsum(const tensor& x, int axis = 1) = 0;
  tensor argmax(const tensor& x, int axis = 1) { return arg_reduce(math_fn::argmax, x, axis); }
  tensor argmin(const tensor& x, int axis = 1) { return arg_reduce(math_fn::argmin, x, axis); }

  // -- waiting ------------------------------------------------------------------------
  /// Suspends until the command is done (timing only: a compute result
  /// stays pending in Phase 1).
  virtual void wait(handle h) = 0;
  /// Suspends until every command issued so far is done.
  virtual void wait_all() = 0;

  // -- atomics on global memory (docs/adr/0027) ----------------------------------------
  // A read-modify-write of the block at `dst` (rows of t's shape, `row_stride`
  // elements apart, 0: packed) that the memory owning it applies, element by
  // element: atomic_add adds t, atomic_max keeps the larger. f32 or i32
  // elements, t's dtype that of `dst`. It is a DMA write whose memory reads
  // and writes the bytes (its timing: docs/kernels.md); returns a handle
  // like a store. Atomics of any PEs on the same bytes take effect in the
  // order they reach the memory, and the Phase 2 replay applies them in that
  // order. A loaded t updates the memory's Phase 1 bytes; a compute result
  // (pending) makes them pending until Phase 2, as its store would. This
  // kernel's later loads of those bytes wait for it. With a mask (known in
  // Phase 1), only the live elements are updated (as a masked store).
  virtual handle atomic(math_fn f, ptr dst, const tensor& t, const tensor* mask,
                        uint64_t row_stride) = 0;
  handle atomic_add(ptr dst, const tensor& t, uint64_t row_stride = 0) {
    return atomic(math_fn::atomic_add, dst, t, nullptr, row_stride);
  }
  handle atomic_max(ptr dst, const tensor& t, uint64_t row_stride = 0) {
    return atomic(math_fn::atomic_max, dst, t, nullptr, row_stride);
  }
  handle atomic_add(ptr dst, const tensor& t, const tensor& mask, uint64_t row_stride = 0) {
    return atomic(math_fn::atomic_add, dst, t, &mask, row_stride);
  }
  handle atomic_max(ptr dst, const tensor& t, const tensor& mask, uint64_t row_stride = 0) {
    return atomic(math_fn::atomic_max, dst, t, &mask, row_stride);
  }
};

} // namespace kb::tl
