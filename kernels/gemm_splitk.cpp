// `gemm_splitk`: C = A x B with K split over the grid (docs/adr/0027).
// Program p takes the K slice [p * slice, (p + 1) * slice), slice =
// ceil(K / split) rounded up to a whole tile; for every output tile it sums
// the slice's partial products into an f32 accumulator on PE_GEMM
// (acc = tl.dot(a, b, acc), the next k tile's blocks loaded with load_async
// while this one's dot runs) and adds the partial tile into C with
// tl.atomic_add, which the memory owning C applies. C (f32) starts zeroed,
// as outputs do; the `split` partial sums of each element arrive in the
// order the memory serves them, the same in Phase 1 and in the replay.

#include "kernels/gemm_reference.hpp"
#include "kernels/shipped.hpp"


#include <algorithm>
#include <utility>

namespace kb {

namespace {

struct splitk_args {
  uint32_t m, k, n, tile, split;
  dtype in;
};

void splitk_body(tl::context& tl, const splitk_args& a, const tensor_table& t) {
  const uint32_t tiles_k = (a.k + a.tile - 1) / a.tile;
  const uint32_t slice = (tiles_k + a.split - 1) / a.split * a.tile;
  const uint32_t k_begin = tl.program_id() * slice;
  const uint32_t k_end = std::min(a.k, k_begin + slice);
  if (k_begin >= k_end)
    return;
  const tl::ptr A = t.at("a"), B = t.at("b"), C = t.at("c");
  for (uint32_t i0 = 0; i0 < a.m; i0 += a.tile)
    for (uint32_t j0 = 0; j0 < a.n; j0 += a.tile) {
      const uint32_t tm = std::min(a.tile, a.m - i0), tn = std::min(a.tile, a.n - j0);
      auto fetch = [&](uint32_t k0) {
        const uint32_t tk = std::min(a.tile, k_end - k0);
        return std::pair{tl.load_async(A + (uint64_t{i0} * a.k + k0), {tm, tk, a.k}),
                         tl.load_async(B + (uint64_t{k0} * a.n + j0), {tk, tn, a.n})};
      };
      tl::tensor acc = tl.zeros(tm, tn);
      auto next = fetch(k_begin);
      for (uint32_t k0 = k_begin; k0 < k_end; k0 += a.tile) {
        const auto cur = std::move(next);
        if (k0 + a.tile < k_end)
          next = fetch(k0 + a.tile); // overlaps this tile's dot
        acc = tl.dot(tl.get(cur.first), tl.get(cur.second), acc);
      }
      tl.atomic_add(C + (uint64_t{i0} * a.n + j0), acc, a.n);
    }
  tl.wait_all();
}

} // namespace

kernel_def gemm_splitk_kernel() {
  kernel_def d;
  d.name = "gemm_splitk";
  d.description = "C = A x B with K split over the grid: each program sums its K slice's "
                  "partial products (accumulating tl.dot) and tl.atomic_adds each partial "
                  "C tile into C (f32)";
  d.args = {{"M", "64", "rows of A and C"},
            {"K", "256", "columns of A, rows of B"},
            {"N", "64", "columns of B and C"},
            {"tile", "32", "tile edge"},
            {"split", "4", "programs along K (the grid)"},
            {"dtype", "f16", "element type of A and B", {"f16", "bf16", "f32"}}};
  d.prepare = [](const kernel_args& x) {
    splitk_args a{x.u32("M"), x.u32("K"), x.u32("N"), x.u32("tile"), x.u32("split"),
                  x.type("dtype")};
    if (a.m == 0 || a.k == 0 || a.n == 0 || a.tile == 0 || a.split == 0)
      throw std::invalid_argument(
        "--arg: kernel gemm_splitk needs M, K, N, tile and split above 0");
    kernel_launch l;
    l.tensors = {{"a", a.m, a.k, a.in}, {"b", a.k, a.n, a.in}, {"c", a.m, a.n, dtype::f32, true}};
    l.grid = {a.split, 1, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { splitk_body(tl, a, t); };
    l.reference = [a](const tensor_values& in) {
      return tensor_values{{"c", gemm_reference(a.m, a.k, a.n, a.in, in.at("a"), in.at("b"))}};
    };
    return l;
  };
  return d;
}

} // namespace kb
