// `gemm`: C (M x N) = A (M x K) x B (K x N) over a grid of PEs. Program p
// computes the p-th block of `block_m` rows of C with one composite GEMM
// command on its PE (PE_SCHEDULER tiles it by `tile`), then waits for it.

#include "kernels/gemm_reference.hpp"
#include "kernels/shipped.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace kb {

namespace {

struct gemm_args {
  uint32_t m, k, n, block_m, tile;
  dtype in, out;
};

void gemm_body(tl::context& tl, const gemm_args& a, const tensor_table& t) {
  const uint32_t p = tl.program_id();
  const uint32_t row0 = p * a.block_m;
  if (row0 >= a.m)
    return;
  gemm_plan_args g;
  g.m = std::min(a.block_m, a.m - row0);
  g.k = a.k;
  g.n = a.n;
  g.tile_m = g.tile_k = g.tile_n = a.tile;
  g.in_dtype = a.in;
  g.out_dtype = a.out;
  g.a_addr = (t.at("a") + uint64_t{row0} * a.k).address;
  g.b_addr = t.at("b").address;
  g.c_addr = (t.at("c") + uint64_t{row0} * a.n).address;
  tl.wait(tl.gemm(g));
}

} // namespace

kernel_def gemm_kernel() {
  kernel_def d;
  d.name = "gemm";
  d.description = "C = A x B, row blocks of C over a grid of PEs, one composite GEMM each";
  d.args = {{"M", "512", "rows of A and C"},
            {"K", "512", "columns of A, rows of B"},
            {"N", "512", "columns of B and C"},
            {"block_m", "128", "rows of C per program"},
            {"tile", "64", "tile edge (tile_m = tile_k = tile_n)"},
            {"dtype", "f16", "element type of A and B", {"f16", "bf16", "f32", "i8"}},
            {"out_dtype", "f32", "element type of C (a float type for float A and B, i32 for i8)",
             {"f16", "bf16", "f32", "i32"}}};
  d.prepare = [](const kernel_args& x) {
    gemm_args a{x.u32("M"), x.u32("K"), x.u32("N"), x.u32("block_m"), x.u32("tile"),
                x.type("dtype"), x.type("out_dtype")};
    if (a.m == 0 || a.k == 0 || a.n == 0 || a.block_m == 0 || a.tile == 0)
      throw std::invalid_argument("--arg: kernel gemm needs M, K, N, block_m and tile above 0");
    kernel_launch l;
    l.tensors = gemm_tensors("gemm", a.m, a.k, a.n, a.in, a.out);
    l.grid = {(a.m + a.block_m - 1) / a.block_m, 1, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { gemm_body(tl, a, t); };
    l.reference = [a](const tensor_values& in) {
      return tensor_values{{"c", gemm_reference(a.m, a.k, a.n, a.in, in.at("a"), in.at("b"))}};
    };
    return l;
  };
  return d;
}

std::vector<kernel_def> shipped_kernel_list() {
  return {gemm_kernel(),      gemm_pipelined_kernel(), gemm_splitk_kernel(),
          gemm_bias_relu_kernel(), softmax_kernel(), layernorm_kernel(),
          eltwise_chain_kernel(),  flash_attention_kernel()};
}

} // namespace kb
