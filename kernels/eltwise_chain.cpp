// `eltwise_chain`: Z = relu(X * Y + 0.5 * X) - exp(-|Y|), element by element
// over blocks of `block_rows` rows: a chain of MATH commands on TCM tensors.

#include "kernels/shipped.hpp"

#include <algorithm>
#include <cmath>

namespace kb {

namespace {

struct chain_args {
  uint32_t rows, cols, block_rows;
  dtype type;
};

void chain_body(tl::context& tl, const chain_args& a, const tensor_table& t) {
  const uint32_t blocks = (a.rows + a.block_rows - 1) / a.block_rows;
  for (uint32_t b = tl.program_id(); b < blocks; b += tl.num_programs()) {
    const uint32_t r0 = b * a.block_rows;
    const uint32_t n = std::min(a.block_rows, a.rows - r0);
    const uint64_t at = uint64_t{r0} * a.cols;
    const tl::tensor x = tl.load(t.at("x") + at, {n, a.cols});
    const tl::tensor y = tl.load(t.at("y") + at, {n, a.cols});
    const tl::tensor lhs = tl.relu(tl.add(tl.mul(x, y), tl.scale(x, 0.5)));
    const tl::tensor rhs = tl.exp(tl.unary(math_fn::neg, tl.unary(math_fn::abs, y)));
    tl.store(t.at("z") + at, tl.cast(tl.sub(lhs, rhs), a.type));
  }
  tl.wait_all();
}

} // namespace

kernel_def eltwise_chain_kernel() {
  kernel_def d;
  d.name = "eltwise_chain";
  d.description = "Z = relu(X*Y + 0.5*X) - exp(-|Y|), a chain of element-wise ops in TCM";
  d.args = {{"rows", "100", "rows of X, Y, Z"},
            {"cols", "96", "columns"},
            {"block_rows", "16", "rows per block (the last block takes the rest)"},
            {"programs", "4", "programs of the grid (blocks dealt round robin)"},
            {"dtype", "bf16", "element type of X, Y and Z", {"f16", "bf16", "f32"}}};
  d.prepare = [](const kernel_args& x) {
    chain_args a{x.u32("rows"), x.u32("cols"), x.u32("block_rows"), x.type("dtype")};
    if (a.rows == 0 || a.cols == 0 || a.block_rows == 0 || x.u32("programs") == 0)
      throw std::invalid_argument(
        "--arg: kernel eltwise_chain needs rows, cols, block_rows and programs above 0");
    kernel_launch l;
    l.tensors = {{"x", a.rows, a.cols, a.type},
                 {"y", a.rows, a.cols, a.type},
                 {"z", a.rows, a.cols, a.type, true}};
    l.grid = {x.u32("programs"), 1, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { chain_body(tl, a, t); };
    l.reference = [](const tensor_values& in) {
      const auto& X = in.at("x");
      const auto& Y = in.at("y");
      std::vector<double> z(X.size());
      for (size_t i = 0; i < X.size(); ++i) {
        const double v = X[i] * Y[i] + 0.5 * X[i];
        z[i] = std::max(v, 0.0) - std::exp(-std::abs(Y[i]));
      }
      return tensor_values{{"z", std::move(z)}};
    };
    return l;
  };
  return d;
}

} // namespace kb
