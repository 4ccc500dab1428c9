// `layernorm`: Y = (X - mean) / sqrt(var + eps) * gamma + beta per row of X
// (rows x cols); gamma and beta are 1 x cols, loaded once per program.
// Program p takes rows p, p + programs, ...

#include "kernels/layer_ops.hpp"
#include "kernels/shipped.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kb {

namespace {

struct layernorm_args {
  uint32_t rows, cols, programs;
  dtype type;
  double eps;
};

void layernorm_body(tl::context& tl, const layernorm_args& a, const tensor_table& t) {
  if (tl.program_id() >= a.rows)
    return;
  const tl::tensor gamma = tl.load(t.at("gamma"), {1, a.cols});
  const tl::tensor beta = tl.load(t.at("beta"), {1, a.cols});
  const double inv_n = 1.0 / a.cols;
  for (uint32_t r = tl.program_id(); r < a.rows; r += tl.num_programs()) {
    const tl::tensor x = tl.load(t.at("x") + uint64_t{r} * a.cols, {1, a.cols});
    const tl::tensor xc = tl.sub(x, tl.scale(tl.sum(x), inv_n));
    const tl::tensor var = tl.scale(tl.sum(tl.mul(xc, xc)), inv_n);
    const tl::tensor norm = tl.mul(xc, tl.rsqrt(tl.add_scalar(var, a.eps)));
    const tl::tensor y = tl.add(tl.mul(norm, gamma), beta);
    tl.store(t.at("y") + uint64_t{r} * a.cols, tl.cast(y, a.type));
  }
  tl.wait_all();
}

} // namespace

kernel_def layernorm_kernel() {
  kernel_def d;
  d.name = "layernorm";
  d.description = "row layer normalisation with gain and bias";
  d.args = {{"rows", "32", "rows of X"},
            {"cols", "512", "columns of X"},
            {"programs", "4", "programs of the grid (rows dealt round robin)"},
            {"dtype", "f32", "element type of X, gamma, beta and Y", {"f16", "bf16", "f32"}},
            {"eps", "1e-5", "added to the variance"}};
  d.prepare = [](const kernel_args& x) {
    layernorm_args a{x.u32("rows"), x.u32("cols"), x.u32("programs"), x.type("dtype"),
                     x.real("eps")};
    if (a.rows == 0 || a.cols == 0 || a.programs == 0)
      throw std::invalid_argument("--arg: kernel layernorm needs rows, cols and programs above 0");
    if (!(a.eps > 0))
      throw std::invalid_argument(fmt::format(
        "--arg eps={}: kernel layernorm needs eps above 0 (it is added to the variance under a "
        "square root)", x.text("eps")));
    kernel_launch l;
    l.tensors = {{"x", a.rows, a.cols, a.type},
                 {"gamma", 1, a.cols, a.type},
                 {"beta", 1, a.cols, a.type},
                 {"y", a.rows, a.cols, a.type, true}};
    l.tensors[0].lo = -3;
    l.tensors[0].hi = 5;
    l.grid = {a.programs, 1, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { layernorm_body(tl, a, t); };
    l.reference = [a](const tensor_values& in) {
      return tensor_values{{"y", layernorm_reference(a.rows, a.cols, a.eps, in.at("x"),
                                                     in.at("gamma"), in.at("beta"))}};
    };
    return l;
  };
  return d;
}

} // namespace kb
