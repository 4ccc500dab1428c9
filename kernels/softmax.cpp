// `softmax`: row softmax of X (rows x cols). A row that is all zeros is a
// masked row: the kernel sees that in the loaded data and skips it, so its
// output row stays zero. Program p takes rows p, p + programs, ...

#include "kernels/shipped.hpp"

#include <cmath>

namespace kb {

namespace {

struct softmax_args {
  uint32_t rows, cols, programs;
  dtype type;
};

void softmax_body(tl::context& tl, const softmax_args& a, const tensor_table& t) {
  for (uint32_t r = tl.program_id(); r < a.rows; r += tl.num_programs()) {
    const tl::tensor x = tl.load(t.at("x") + uint64_t{r} * a.cols, {1, a.cols});
    bool zero = true;
    for (uint32_t c = 0; c < a.cols && zero; ++c)
      zero = x.at(0, c) == 0.0f;
    if (zero)
      continue; // a masked row: leave it zero
    const tl::tensor e = tl.exp(tl.sub(x, tl.max(x)));
    const tl::tensor y = tl.cast(tl.div(e, tl.sum(e)), a.type);
    tl.store(t.at("y") + uint64_t{r} * a.cols, y);
  }
  tl.wait_all();
}

} // namespace

kernel_def softmax_kernel() {
  kernel_def d;
  d.name = "softmax";
  d.description = "row softmax; rows that are all zero (masked) are skipped, seen in the loaded data";
  d.args = {{"rows", "64", "rows of X"},
            {"cols", "256", "columns of X"},
            {"programs", "4", "programs of the grid (rows dealt round robin)"},
            {"dtype", "f16", "element type of X and Y", {"f16", "bf16", "f32"}},
            {"masked_every", "5", "every n-th row of X is all zeros (0: none)"}};
  d.prepare = [](const kernel_args& x) {
    softmax_args a{x.u32("rows"), x.u32("cols"), x.u32("programs"), x.type("dtype")};
    const uint32_t every = x.u32("masked_every");
    if (a.rows == 0 || a.cols == 0 || a.programs == 0)
      throw std::invalid_argument("--arg: kernel softmax needs rows, cols and programs above 0");
    kernel_launch l;
    kernel_tensor in{"x", a.rows, a.cols, a.type};
    in.lo = -4;
    in.hi = 4;
    in.adjust = [a, every](std::vector<double>& v) {
      for (uint32_t r = 0; every > 0 && r < a.rows; r += every)
        std::fill_n(v.begin() + static_cast<ptrdiff_t>(size_t{r} * a.cols), a.cols, 0.0);
    };
    l.tensors = {in, {"y", a.rows, a.cols, a.type, true}};
    l.grid = {a.programs, 1, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { softmax_body(tl, a, t); };
    l.reference = [a](const tensor_values& in) {
      const auto& X = in.at("x");
      std::vector<double> y(X.size(), 0.0);
      for (uint32_t r = 0; r < a.rows; ++r) {
        const double* row = &X[size_t{r} * a.cols];
        bool zero = true;
        double m = row[0];
        for (uint32_t c = 0; c < a.cols; ++c) {
          zero = zero && row[c] == 0.0;
          m = std::max(m, row[c]);
        }
        if (zero)
          continue;
        double s = 0;
        for (uint32_t c = 0; c < a.cols; ++c)
          s += std::exp(row[c] - m);
        for (uint32_t c = 0; c < a.cols; ++c)
          y[size_t{r} * a.cols + c] = std::exp(row[c] - m) / s;
      }
      return tensor_values{{"y", std::move(y)}};
    };
    return l;
  };
  return d;
}

} // namespace kb
