// `gemm_pipelined`: C (M x N) = A (M x K) x B (K x N) written as a kernel
// author tunes it: a 2-D grid of output blocks (axis 0 along N, axis 1 along
// M), each block's K loop double-buffered with tl.load_async (the A and B
// blocks of step k + 1 arrive while the dot of step k runs), one
// accumulating tl.dot per step into an f32 (i32) accumulator, and masked
// loads and a masked store at ragged edges (masked-off elements read as 0
// and are neither moved nor written). docs/kernels.md walks through it.
// Optional epilogue on the f32 accumulator, before the cast to C's dtype:
// an activation (relu, or GELU by its tanh approximation) and then a
// residual R (M x N, C's dtype) added: C = act(A x B) + R.

#include "kernels/gemm_reference.hpp"
#include "kernels/layer_ops.hpp"
#include "kernels/shipped.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace kb {

namespace {

struct pipelined_args {
  uint32_t m, k, n, bm, bn, bk;
  dtype in, out;
  activation act;
  bool residual;
};

/// A block on its way into TCM: a future while a whole block is in flight,
/// or the tensor a masked (ragged-edge) load returned.
struct incoming {
  tl::future f;
  tl::tensor t;
  tl::tensor get() { return f.valid() ? f.get() : t; }
};

/// The live rows x cols corner of a br x bc block: an i8 mask.
tl::tensor corner(tl::context& tl, uint32_t br, uint32_t bc, uint32_t rows, uint32_t cols) {
  return tl.logical_and(tl.lt(tl.arange(br, 0, 0), rows), tl.lt(tl.arange(bc, 0, 1), cols));
}

/// The br x bc block at (row0, col0) of a rows_total x cols_total matrix.
incoming fetch(tl::context& tl, tl::ptr base, uint32_t rows_total, uint32_t cols_total,
               uint32_t row0, uint32_t col0, uint32_t br, uint32_t bc) {
  const tl::ptr p = base + uint64_t{row0} * cols_total + col0;
  const uint32_t rows = std::min(br, rows_total - row0), cols = std::min(bc, cols_total - col0);
  if (rows == br && cols == bc)
    return {tl.load_async(p, {br, bc, cols_total}), {}};
  return {{}, tl.load(p, {br, bc, cols_total}, corner(tl, br, bc, rows, cols), 0)};
}

void pipelined_body(tl::context& tl, const pipelined_args& a, const tensor_table& t) {
  const uint32_t n0 = tl.program_id(0) * a.bn, m0 = tl.program_id(1) * a.bm;
  const tl::ptr A = t.at("a"), B = t.at("b"), C = t.at("c");
  const bool integer = a.in == dtype::i8;
  tl::tensor acc = tl.zeros(a.bm, a.bn, integer ? dtype::i32 : dtype::f32);
  const uint32_t steps = (a.k + a.bk - 1) / a.bk;
  incoming next_a = fetch(tl, A, a.m, a.k, m0, 0, a.bm, a.bk);
  incoming next_b = fetch(tl, B, a.k, a.n, 0, n0, a.bk, a.bn);
  incoming residual; // arrives during the K loop
  if (a.residual)
    residual = fetch(tl, t.at("r"), a.m, a.n, m0, n0, a.bm, a.bn);
  for (uint32_t s = 0; s < steps; ++s) {
    const tl::tensor x = next_a.get();
    const tl::tensor y = next_b.get();
    if (s + 1 < steps) { // the next step's blocks arrive during this dot
      const uint32_t k0 = (s + 1) * a.bk;
      next_a = fetch(tl, A, a.m, a.k, m0, k0, a.bm, a.bk);
      next_b = fetch(tl, B, a.k, a.n, k0, n0, a.bk, a.bn);
    }
    acc = tl.dot(x, y, acc);
  }
  const uint32_t rows = std::min(a.bm, a.m - m0), cols = std::min(a.bn, a.n - n0);
  if (a.act != activation::none)
    acc = apply_activation(tl, a.act, acc);
  if (a.residual)
    acc = tl.add(acc, residual.get());
  const tl::tensor c = a.out == acc.type() ? acc : tl.cast(acc, a.out);
  const tl::ptr at = C + uint64_t{m0} * a.n + n0;
  // No wait: the next program's loads overlap this store (the launch
  // completes when every command has).
  if (rows == a.bm && cols == a.bn)
    tl.store(at, c, a.n);
  else
    tl.store(at, c, corner(tl, a.bm, a.bn, rows, cols), a.n);
}

} // namespace

kernel_def gemm_pipelined_kernel() {
  kernel_def d;
  d.name = "gemm_pipelined";
  d.description = "C = A x B over a 2-D grid of output blocks, each K loop double-buffered "
                  "with load_async and accumulating dots, masked at ragged edges";
  d.args = {{"M", "512", "rows of A and C"},
            {"K", "512", "columns of A, rows of B"},
            {"N", "512", "columns of B and C"},
            {"block_m", "128", "rows of C per program (grid axis 1)"},
            {"block_n", "128", "columns of C per program (grid axis 0)"},
            {"block_k", "64", "columns of A (rows of B) per step of the K loop"},
            {"dtype", "f16", "element type of A and B", {"f16", "bf16", "f32", "i8"}},
            {"out_dtype", "f32", "element type of C (a float type for float A and B, i32 for i8)",
             {"f16", "bf16", "f32", "i32"}},
            {"activation", "none", "applied to A x B before the residual (gelu: tanh approximation)",
             {"none", "relu", "gelu"}},
            {"residual", "0", "1: C = act(A x B) + R, R (M x N) a tensor in C's dtype", {"0", "1"}}};
  d.prepare = [](const kernel_args& x) {
    pipelined_args a{x.u32("M"),       x.u32("K"),       x.u32("N"),
                     x.u32("block_m"), x.u32("block_n"), x.u32("block_k"),
                     x.type("dtype"),  x.type("out_dtype"), parse_activation(x.text("activation")),
                     x.u32("residual") == 1};
    if (a.m == 0 || a.k == 0 || a.n == 0 || a.bm == 0 || a.bn == 0 || a.bk == 0)
      throw std::invalid_argument(
        "--arg: kernel gemm_pipelined needs M, K, N, block_m, block_n and block_k above 0");
    if (a.in == dtype::i8 && (a.act != activation::none || a.residual))
      throw std::invalid_argument(fmt::format(
        "--arg activation={} residual={}: kernel gemm_pipelined has its epilogue for float "
        "types only (dtype is i8)", x.text("activation"), x.text("residual")));
    kernel_launch l;
    l.tensors = gemm_tensors("gemm_pipelined", a.m, a.k, a.n, a.in, a.out);
    if (a.residual)
      l.tensors.insert(l.tensors.begin() + 2, kernel_tensor{"r", a.m, a.n, a.out});
    l.grid = {(a.n + a.bn - 1) / a.bn, (a.m + a.bm - 1) / a.bm, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { pipelined_body(tl, a, t); };
    l.reference = [a](const tensor_values& in) {
      std::vector<double> c = gemm_reference(a.m, a.k, a.n, a.in, in.at("a"), in.at("b"));
      apply_activation(a.act, c);
      if (a.residual)
        for (size_t i = 0; const double r : in.at("r"))
          c[i++] += r;
      return tensor_values{{"c", std::move(c)}};
    };
    return l;
  };
  return d;
}

} // namespace kb
