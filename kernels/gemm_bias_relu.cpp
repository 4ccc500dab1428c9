// `gemm_bias_relu`: C = relu(A x B + bias), in one of two ways:
// - mode=dot: the GEMM tile by tile on TCM tensors (tl.dot, partial
//   products summed in f32) and the epilogue (a bias row broadcast down the
//   tile, then relu) applied by MATH commands before the tile is stored.
//   Program p takes output tiles p, p + programs, ...
// - mode=composite: program p takes row blocks p, p + programs, ... of
//   `tile` rows; it loads the block of A into TCM once, pins it, and issues
//   one composite GEMM over it whose epilogue (bias from global memory, then
//   relu) runs on PE_MATH per output tile.

#include "kernels/shipped.hpp"

#include <Eigen/Dense>

#include <algorithm>

namespace kb {

namespace {

struct gbr_args {
  uint32_t m, k, n, tile;
  dtype in, out;
  bool composite;
};

void gbr_composite(tl::context& tl, const gbr_args& a, const tensor_table& t) {
  for (uint32_t i0 = tl.program_id() * a.tile; i0 < a.m; i0 += tl.num_programs() * a.tile) {
    const uint32_t tm = std::min(a.tile, a.m - i0);
    const tl::tensor rows = tl.load(t.at("a") + uint64_t{i0} * a.k, {tm, a.k});
    gemm_plan_args g;
    g.m = tm;
    g.k = a.k;
    g.n = a.n;
    g.tile_m = g.tile_k = g.tile_n = a.tile;
    g.in_dtype = a.in;
    g.out_dtype = a.out;
    g.a_addr = rows.address();
    g.a_pinned = true;
    g.b_addr = t.at("b").address;
    g.c_addr = (t.at("c") + uint64_t{i0} * a.n).address;
    g.epilogue = {{math_op::bias, epilogue_scope::output_tile,
                   packed_view(t.at("bias").address, 1, a.n, a.in)},
                  {math_op::relu, epilogue_scope::output_tile}};
    tl.wait(tl.gemm(g)); // `rows` stays in TCM until the GEMM is done
  }
}

void gbr_body(tl::context& tl, const gbr_args& a, const tensor_table& t) {
  if (a.composite)
    return gbr_composite(tl, a, t);
  const uint32_t tiles_m = (a.m + a.tile - 1) / a.tile, tiles_n = (a.n + a.tile - 1) / a.tile;
  for (uint32_t id = tl.program_id(); id < tiles_m * tiles_n; id += tl.num_programs()) {
    const uint32_t i0 = id / tiles_n * a.tile, j0 = id % tiles_n * a.tile;
    const uint32_t tm = std::min(a.tile, a.m - i0), tn = std::min(a.tile, a.n - j0);
    tl::tensor acc;
    for (uint32_t k0 = 0; k0 < a.k; k0 += a.tile) {
      const uint32_t tk = std::min(a.tile, a.k - k0);
      const tl::tensor at = tl.load(t.at("a") + (uint64_t{i0} * a.k + k0), {tm, tk, a.k});
      const tl::tensor bt = tl.load(t.at("b") + (uint64_t{k0} * a.n + j0), {tk, tn, a.n});
      const tl::tensor p = tl.dot(at, bt);
      acc = k0 == 0 ? p : tl.add(acc, p);
    }
    const tl::tensor bias = tl.load(t.at("bias") + j0, {1, tn});
    const tl::tensor c = tl.relu(tl.add(acc, bias));
    tl.store(t.at("c") + (uint64_t{i0} * a.n + j0), tl.cast(c, a.out), a.n);
  }
  tl.wait_all();
}

} // namespace

kernel_def gemm_bias_relu_kernel() {
  kernel_def d;
  d.name = "gemm_bias_relu";
  d.description = "C = relu(A x B + bias): tl.dot per tile and MATH epilogue, or a composite "
                  "GEMM on a pinned A block with bias and relu epilogue ops";
  d.args = {{"M", "96", "rows of A and C"},
            {"K", "80", "columns of A, rows of B"},
            {"N", "72", "columns of B and C"},
            {"tile", "32", "tile edge"},
            {"programs", "4", "programs of the grid (output tiles dealt round robin)"},
            {"dtype", "f16", "element type of A, B and bias", {"f16", "bf16", "f32"}},
            {"out_dtype", "f32", "element type of C", {"f16", "bf16", "f32"}},
            {"mode", "dot", "dot (tl.dot per tile) or composite (pinned A, GEMM epilogue ops)",
             {"dot", "composite"}}};
  d.prepare = [](const kernel_args& x) {
    const std::string& mode = x.text("mode");
    gbr_args a{x.u32("M"), x.u32("K"), x.u32("N"), x.u32("tile"), x.type("dtype"),
               x.type("out_dtype"), mode == "composite"};
    if (a.m == 0 || a.k == 0 || a.n == 0 || a.tile == 0 || x.u32("programs") == 0)
      throw std::invalid_argument(
        "--arg: kernel gemm_bias_relu needs M, K, N, tile and programs above 0");
    kernel_launch l;
    l.tensors = {{"a", a.m, a.k, a.in},
                 {"b", a.k, a.n, a.in},
                 {"bias", 1, a.n, a.in},
                 {"c", a.m, a.n, a.out, true}};
    l.grid = {x.u32("programs"), 1, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { gbr_body(tl, a, t); };
    l.reference = [a](const tensor_values& in) {
      using matd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      const matd c = Eigen::Map<const matd>(in.at("a").data(), a.m, a.k) *
                     Eigen::Map<const matd>(in.at("b").data(), a.k, a.n);
      const auto& bias = in.at("bias");
      std::vector<double> out(size_t{a.m} * a.n);
      for (uint32_t i = 0; i < a.m; ++i)
        for (uint32_t j = 0; j < a.n; ++j)
          out[size_t{i} * a.n + j] = std::max(0.0, c(i, j) + bias[j]);
      return tensor_values{{"c", std::move(out)}};
    };
    return l;
  };
  return d;
}

} // namespace kb
