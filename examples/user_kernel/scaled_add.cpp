// `scaled_add`: Z = alpha * X + Y, element by element, over blocks of
// `block_rows` rows; program p takes blocks p, p + programs, ...
//
// A kernel library built outside kernbench against its installation
// (README.md): it includes only kernbench's installed headers, links nothing
// from kernbench, and is loaded with `kernbench run --kernel-lib`.

#include "kernels/registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace {

using namespace kb;

struct scaled_add_args {
  uint32_t rows, cols, block_rows;
  double alpha;
  dtype type;
};

/// What each program runs, as a fiber on its PE.
void scaled_add_body(tl::context& tl, const scaled_add_args& a, const tensor_table& t) {
  const uint32_t blocks = (a.rows + a.block_rows - 1) / a.block_rows;
  for (uint32_t b = tl.program_id(); b < blocks; b += tl.num_programs()) {
    const uint32_t r0 = b * a.block_rows;
    const uint32_t n = std::min(a.block_rows, a.rows - r0);
    const uint64_t at = uint64_t{r0} * a.cols;
    const tl::tensor x = tl.load(t.at("x") + at, {n, a.cols}); // suspends until the data is in TCM
    const tl::tensor y = tl.load(t.at("y") + at, {n, a.cols});
    const tl::tensor z = tl.add(tl.scale(x, a.alpha), y);      // MATH commands, pending in Phase 1
    tl.store(t.at("z") + at, tl.cast(z, a.type));
  }
  tl.wait_all();
}

kernel_def scaled_add_kernel() {
  kernel_def d;
  d.name = "scaled_add";
  d.description = "Z = alpha*X + Y over blocks of rows (an example kernel library)";
  d.args = {{"rows", "128", "rows of X, Y, Z"},
            {"cols", "64", "columns"},
            {"block_rows", "16", "rows per block (the last block takes the rest)"},
            {"programs", "4", "programs of the grid (blocks dealt round robin)"},
            {"alpha", "0.5", "the scale of X"},
            {"dtype", "f32", "element type of X, Y and Z", {"f16", "bf16", "f32"}}};
  d.prepare = [](const kernel_args& x) {
    const scaled_add_args a{x.u32("rows"), x.u32("cols"), x.u32("block_rows"), x.real("alpha"),
                            x.type("dtype")};
    if (a.rows == 0 || a.cols == 0 || a.block_rows == 0 || x.u32("programs") == 0)
      throw std::invalid_argument(
        "--arg: kernel scaled_add needs rows, cols, block_rows and programs above 0");
    kernel_launch l;
    l.tensors = {{"x", a.rows, a.cols, a.type},
                 {"y", a.rows, a.cols, a.type},
                 {"z", a.rows, a.cols, a.type, true}}; // the output: verified
    l.grid = {x.u32("programs"), 1, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { scaled_add_body(tl, a, t); };
    // The reference Phase 2's result is checked against, from the inputs
    // as deployed, in f64: the verifier rounds it to z's dtype as a store
    // does and compares with the dtype's tolerance.
    l.reference = [a](const tensor_values& in) {
      const auto& X = in.at("x");
      const auto& Y = in.at("y");
      std::vector<double> z(X.size());
      for (size_t i = 0; i < X.size(); ++i)
        z[i] = a.alpha * X[i] + Y[i];
      return tensor_values{{"z", std::move(z)}};
    };
    return l;
  };
  return d;
}

} // namespace

// The library's entry point: kernbench calls it once, when it loads the library.
extern "C" void kernbench_register_kernels(kb::kernel_catalog& catalog) {
  catalog.add(scaled_add_kernel());
}
