// `decoder_layer`: a pre-LayerNorm transformer decoder block as one
// program of seven dependent launches on one queue, each kernel reading
// what the previous one wrote to memory:
//
//   xn   = layernorm(x; ln1_gamma, ln1_beta)              layernorm
//   qkv  = xn w_qkv                  (seq x 3 d_model)      gemm_pipelined
//   attn = multi-head attention(qkv) (seq x d_model)        flash_attention, layout packed
//   h1   = attn w_o + x                                     gemm_pipelined, residual
//   h1n  = layernorm(h1; ln2_gamma, ln2_beta)               layernorm
//   m    = act(h1n w_up)             (seq x ffn)            gemm_pipelined, activation
//   y    = m w_down + h1                                    gemm_pipelined, residual
//
// Every tensor is in `dtype` (f16 or bf16; the GEMMs and attention
// accumulate in f32). Weights are drawn in +-sqrt(3 / fan_in), so every
// stage's values stay of order 1, as in a trained layer. Every
// intermediate is an output: --verify checks each launch's result, and the
// reference computes each stage from the previous one rounded to `dtype`
// as it was stored, so a mismatch names the launch that made it.
// Grids are sized by the PEs the program runs on (program_builder::pes()).

#include "kernels/gemm_reference.hpp"
#include "kernels/layer_ops.hpp"
#include "kernels/program.hpp"
#include "kernels/shipped.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kb {

namespace {

struct layer_args {
  uint32_t seq, d, heads, ffn, block;
  dtype type;
  std::string act;
  bool causal;
  double eps;
};

std::string text(uint32_t v) { return std::to_string(v); }

/// A weight of `rows` (the fan-in) x `cols`, drawn in +-sqrt(3 / rows).
kernel_tensor weight(std::string name, uint32_t rows, uint32_t cols, dtype t) {
  kernel_tensor w{std::move(name), rows, cols, t};
  w.hi = static_cast<float>(std::sqrt(3.0 / rows));
  w.lo = -w.hi;
  return w;
}

/// LayerNorm's gain (around 1) and bias (small).
void norm_params(program_builder& p, const std::string& prefix, uint32_t d, dtype t,
                 const tensor_place& at) {
  kernel_tensor g{prefix + "_gamma", 1, d, t};
  g.lo = 0.5F;
  g.hi = 1.5F;
  g.place = at;
  kernel_tensor b{prefix + "_beta", 1, d, t};
  b.lo = -0.1F;
  b.hi = 0.1F;
  b.place = at;
  p.tensor(std::move(g));
  p.tensor(std::move(b));
}

/// gemm_pipelined's arguments for C (m x n) = act(A x B) (+ R).
std::map<std::string, std::string> gemm_args(const layer_args& a, uint32_t m, uint32_t k,
                                             uint32_t n, const std::string& act, bool residual) {
  const std::string t(to_string(a.type)), b = text(a.block);
  return {{"M", text(m)},        {"K", text(k)},         {"N", text(n)},
          {"block_m", b},        {"block_n", b},         {"block_k", b},
          {"dtype", t},          {"out_dtype", t},       {"activation", act},
          {"residual", residual ? "1" : "0"}};
}

std::vector<double> rounded(dtype t, std::vector<double> v) {
  for (double& x : v)
    x = round_to(t, x);
  return v;
}

/// x + r, element by element.
std::vector<double> plus(std::vector<double> x, const std::vector<double>& r) {
  for (size_t i = 0; i < x.size(); ++i)
    x[i] += r[i];
  return x;
}

/// How many of the machine's cubes the layer's rows are split over: the
/// most that divide seq into parts of at least `block` rows (or of seq).
uint32_t cubes_used(const program_builder& p, const layer_args& a) {
  const auto cubes = static_cast<uint32_t>(p.cubes().size());
  const uint32_t least = std::min(a.block, a.seq);
  for (uint32_t c = cubes; c > 1; --c)
    if (a.seq % c == 0 && a.seq / c >= least)
      return c;
  return 1;
}

void build_layer(program_builder& p, const layer_args& a) {
  const uint32_t s = a.seq, d = a.d, f = a.ffn;
  const dtype t = a.type;
  const uint32_t cubes = cubes_used(p, a), part = s / cubes;
  // Split over cubes: each cube's rows of every activation in its own HBM,
  // the weights copied into each.
  const tensor_place rows_here{cubes > 1 ? tensor_place::memory::spread_cubes
                                         : tensor_place::memory::first_cube_hbm,
                               0, 0, 0, part};
  const tensor_place copied{cubes > 1 ? tensor_place::memory::replicated
                                      : tensor_place::memory::first_cube_hbm};
  auto input = [&](kernel_tensor k, const tensor_place& at) {
    k.place = at;
    p.tensor(std::move(k));
  };
  input({"x", s, d, t}, rows_here);
  norm_params(p, "ln1", d, t, copied);
  input(weight("w_qkv", d, 3 * d, t), copied);
  input(weight("w_o", d, d, t), copied);
  norm_params(p, "ln2", d, t, copied);
  input(weight("w_up", d, f, t), copied);
  input(weight("w_down", f, d, t), copied);
  for (const auto& [name, cols] : {std::pair<const char*, uint32_t>{"xn", d},
                                   {"qkv", 3 * d},
                                   {"attn", d},
                                   {"h1", d},
                                   {"h1n", d},
                                   {"m", f},
                                   {"y", d}})
    input({name, s, cols, t, true}, rows_here);

  const std::string ty(to_string(t)), eps = fmt::format("{}", a.eps);
  // Cube k's queue and PEs, and its rows [r0, r1) of every activation.
  std::vector<program_queue> queues;
  std::vector<program_event> projected; // each cube's QKV written
  for (uint32_t k = 0; k < cubes; ++k) {
    const program_queue q = p.queue(cubes > 1 ? fmt::format("cube{}", k) : "layer");
    const pe_range pes = cubes > 1 ? p.cubes()[k] : pe_range{};
    const uint32_t r0 = k * part, r1 = r0 + part;
    auto rows = [&](const char* name) { return cubes > 1 ? rows_of(name, r0, r1) : name; };
    const uint32_t cube_pes = pes.count ? pes.count : p.pes();
    p.launch(q, "layernorm",
             {{"rows", text(part)}, {"cols", text(d)},
              {"programs", text(std::min(part, cube_pes))}, {"dtype", ty}, {"eps", eps}},
             {{"x", rows("x")}, {"gamma", "ln1_gamma"}, {"beta", "ln1_beta"}, {"y", rows("xn")}},
             pes);
    p.launch(q, "gemm_pipelined", gemm_args(a, part, d, 3 * d, "none", false),
             {{"a", rows("xn")}, {"b", "w_qkv"}, {"c", rows("qkv")}}, pes);
    queues.push_back(q);
    projected.push_back(p.record(q));
  }
  for (uint32_t k = 0; k < cubes; ++k) {
    const program_queue q = queues[k];
    const pe_range pes = cubes > 1 ? p.cubes()[k] : pe_range{};
    const uint32_t r0 = k * part, r1 = r0 + part;
    auto rows = [&](const char* name) { return cubes > 1 ? rows_of(name, r0, r1) : name; };
    // Attention reads the keys of every cube before it (all of them unless causal).
    for (uint32_t j = 0; j < cubes; ++j)
      if (j != k && (!a.causal || j < k))
        p.wait(q, projected[j]);
    // Query blocks of 64 rows: smaller ones would spread a head over more
    // PEs, but each reads all of its keys again (over the SIP links, for
    // the cubes far from the first).
    const uint32_t cube_pes = pes.count ? pes.count : p.pes();
    const uint32_t block_m = std::min(64u, part);
    p.launch(q, "flash_attention",
             {{"heads", text(a.heads)}, {"seq", text(s)}, {"head_dim", text(d / a.heads)},
              {"block_m", text(block_m)}, {"block_n", text(std::min(64u, s))},
              {"causal", a.causal ? "1" : "0"}, {"dtype", ty}, {"layout", "packed"},
              {"first_query", text(r0)}, {"queries", text(part)}},
             {{"qkv", "qkv"}, {"o", rows("attn")}}, pes);
    p.launch(q, "gemm_pipelined", gemm_args(a, part, d, d, "none", true),
             {{"a", rows("attn")}, {"b", "w_o"}, {"r", rows("x")}, {"c", rows("h1")}}, pes);
    p.launch(q, "layernorm",
             {{"rows", text(part)}, {"cols", text(d)},
              {"programs", text(std::min(part, cube_pes))}, {"dtype", ty}, {"eps", eps}},
             {{"x", rows("h1")}, {"gamma", "ln2_gamma"}, {"beta", "ln2_beta"},
              {"y", rows("h1n")}},
             pes);
    p.launch(q, "gemm_pipelined", gemm_args(a, part, d, f, a.act, false),
             {{"a", rows("h1n")}, {"b", "w_up"}, {"c", rows("m")}}, pes);
    p.launch(q, "gemm_pipelined", gemm_args(a, part, f, d, "none", true),
             {{"a", rows("m")}, {"b", "w_down"}, {"r", rows("h1")}, {"c", rows("y")}}, pes);
  }

  p.reference([a](const tensor_values& v) {
    const uint32_t s = a.seq, d = a.d, f = a.ffn;
    const dtype t = a.type;
    auto gemm = [&](uint32_t m, uint32_t k, uint32_t n, const std::vector<double>& x,
                    const char* w) { return gemm_reference(m, k, n, t, x, v.at(w)); };
    tensor_values out;
    out["xn"] = rounded(t, layernorm_reference(s, d, a.eps, v.at("x"), v.at("ln1_gamma"),
                                               v.at("ln1_beta")));
    out["qkv"] = rounded(t, gemm(s, d, 3 * d, out["xn"], "w_qkv"));
    const attention_shape shape{a.heads, s, d / a.heads, a.causal};
    out["attn"] = rounded(t, attention_reference(shape, attention_packed_layout(shape),
                                                 out["qkv"], out["qkv"], out["qkv"]));
    out["h1"] = rounded(t, plus(gemm(s, d, d, out["attn"], "w_o"), v.at("x")));
    out["h1n"] = rounded(t, layernorm_reference(s, d, a.eps, out["h1"], v.at("ln2_gamma"),
                                                v.at("ln2_beta")));
    std::vector<double> m = gemm(s, d, f, out["h1n"], "w_up");
    apply_activation(parse_activation(a.act), m);
    out["m"] = rounded(t, std::move(m));
    out["y"] = plus(gemm(s, f, d, out["m"], "w_down"), out["h1"]);
    return out;
  });
}

} // namespace

program_def decoder_layer_program() {
  program_def d;
  d.name = "decoder_layer";
  d.description = "a pre-LayerNorm transformer decoder block: LayerNorm, QKV GEMM, multi-head "
                  "flash attention, output projection + residual, LayerNorm, MLP with "
                  "activation + residual; seven dependent launches";
  d.args = {{"seq", "128", "sequence length (rows of x and y)"},
            {"d_model", "256", "model width (columns of x and y)"},
            {"heads", "4", "attention heads (d_model / heads is 64 or 128)"},
            {"ffn", "1024", "width of the MLP's hidden layer"},
            {"dtype", "f16", "element type of every tensor", {"f16", "bf16"}},
            {"activation", "gelu", "the MLP's activation (gelu: tanh approximation)",
             {"gelu", "relu"}},
            {"causal", "1", "1: query i attends to keys 0..i only", {"0", "1"}},
            {"block", "64", "edge of the GEMMs' output blocks and K step"},
            {"eps", "1e-5", "LayerNorm's epsilon"}};
  d.build = [](program_builder& p, const kernel_args& x) {
    const layer_args a{x.u32("seq"),   x.u32("d_model"),    x.u32("heads"),
                       x.u32("ffn"),   x.u32("block"),      x.type("dtype"),
                       x.text("activation"), x.u32("causal") == 1, x.real("eps")};
    if (a.seq == 0 || a.d == 0 || a.heads == 0 || a.ffn == 0 || a.block == 0)
      throw std::invalid_argument(
        "--arg: program decoder_layer needs seq, d_model, heads, ffn and block above 0");
    if (a.d % a.heads != 0 || (a.d / a.heads != 64 && a.d / a.heads != 128))
      throw std::invalid_argument(fmt::format(
        "--arg d_model={} heads={}: program decoder_layer needs d_model / heads to be 64 or "
        "128 (flash_attention's head_dim)", a.d, a.heads));
    if (!(a.eps > 0))
      throw std::invalid_argument(
        fmt::format("--arg eps={}: program decoder_layer needs eps above 0", x.text("eps")));
    build_layer(p, a);
  };
  return d;
}

} // namespace kb
