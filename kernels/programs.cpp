// The host programs kernbench ships (kernels/program.hpp).
//
// `gemm_chain`: the smallest program whose second kernel consumes the
// first's computed output through memory: H = X x W1 (the `gemm` kernel,
// X and W1 in `dtype`, H in f32), then Y = H x W2 (`gemm` again, in f32),
// both on one queue, so the second launch is issued when the first's
// completion reaches the host.

#include "kernels/gemm_reference.hpp"
#include "kernels/program.hpp"
#include "kernels/shipped.hpp"

#include <fmt/format.h>

#include <string>

namespace kb {

namespace {

program_def gemm_chain_program() {
  program_def d;
  d.name = "gemm_chain";
  d.description = "H = X x W1, then Y = H x W2: two dependent launches of gemm on one queue";
  d.args = {{"M", "256", "rows of X, H and Y"},
            {"K", "256", "columns of X, rows of W1"},
            {"H", "256", "columns of W1 and H, rows of W2"},
            {"N", "256", "columns of W2 and Y"},
            {"block_m", "64", "rows of H and Y per program"},
            {"tile", "64", "tile edge of both GEMMs"},
            {"dtype", "f16", "element type of X and W1 (H, W2 and Y are f32)",
             {"f16", "bf16", "f32"}}};
  d.build = [](program_builder& p, const kernel_args& a) {
    const uint32_t m = a.u32("M"), k = a.u32("K"), h = a.u32("H"), n = a.u32("N");
    const dtype in = a.type("dtype");
    if (m == 0 || k == 0 || h == 0 || n == 0)
      throw std::invalid_argument("--arg: program gemm_chain needs M, K, H and N above 0");
    p.tensor({"x", m, k, in});
    p.tensor({"w1", k, h, in});
    p.tensor({"h", m, h, dtype::f32, true});
    p.tensor({"w2", h, n, dtype::f32});
    p.tensor({"y", m, n, dtype::f32, true});
    const std::string bm = a.text("block_m"), tile = a.text("tile");
    const program_queue q = p.queue("main");
    p.launch(q, "gemm",
             {{"M", std::to_string(m)}, {"K", std::to_string(k)}, {"N", std::to_string(h)},
              {"block_m", bm}, {"tile", tile}, {"dtype", std::string(to_string(in))},
              {"out_dtype", "f32"}},
             {{"a", "x"}, {"b", "w1"}, {"c", "h"}});
    p.launch(q, "gemm",
             {{"M", std::to_string(m)}, {"K", std::to_string(h)}, {"N", std::to_string(n)},
              {"block_m", bm}, {"tile", tile}, {"dtype", "f32"}, {"out_dtype", "f32"}},
             {{"a", "h"}, {"b", "w2"}, {"c", "y"}});
    p.reference([m, k, h, n, in](const tensor_values& v) {
      std::vector<double> hv = gemm_reference(m, k, h, in, v.at("x"), v.at("w1"));
      std::vector<double> y = gemm_reference(m, h, n, dtype::f32, hv, v.at("w2"));
      return tensor_values{{"h", std::move(hv)}, {"y", std::move(y)}};
    });
  };
  return d;
}

} // namespace

std::vector<program_def> shipped_program_list() {
  return {gemm_chain_program(), decoder_layer_program()};
}

} // namespace kb
