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
void norm_params(program_builder& p, const std::string& prefix, uint32_t d, dtype t) {
  kernel_tensor g{prefix + "_gamma", 1, d, t};
  g.lo = 0.5F;
  g.hi = 1.5F;
  kernel_tensor b{prefix + "_beta", 1, d, t};
  b.lo = -0.1F;
  b.hi = 0.1F;
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

void build_layer(program_builder& p, const layer_args& a) {
  const uint32_t s = a.seq, d = a.d, f = a.ffn;
  const dtype t = a.type;
  p.tensor({"x", s, d, t});
  norm_params(p, "ln1", d, t);
  p.tensor(weight("w_qkv", d, 3 * d, t));
  p.tensor(weight("w_o", d, d, t));
  norm_params(p, "ln2", d, t);
  p.tensor(weight("w_up", d, f, t));
  p.tensor(weight("w_down", f, d, t));
  for (const auto& [name, cols] : {std::pair<const char*, uint32_t>{"xn", d},
                                   {"qkv", 3 * d},
                                   {"attn", d},
                                   {"h1", d},
                                   {"h1n", d},
                                   {"m", f},
                                   {"y", d}})
    p.tensor({name, s, cols, t, true});

  const program_queue q = p.queue("layer");
  const std::string ty(to_string(t)), eps = fmt::format("{}", a.eps);
  const std::string norm_programs = text(std::min(s, p.pes()));
  auto norm = [&](const char* in, const char* prefix, const char* out) {
    p.launch(q, "layernorm",
             {{"rows", text(s)}, {"cols", text(d)}, {"programs", norm_programs},
              {"dtype", ty}, {"eps", eps}},
             {{"x", in}, {"gamma", std::string(prefix) + "_gamma"},
              {"beta", std::string(prefix) + "_beta"}, {"y", out}});
  };
  norm("x", "ln1", "xn");
  p.launch(q, "gemm_pipelined", gemm_args(a, s, d, 3 * d, "none", false),
           {{"a", "xn"}, {"b", "w_qkv"}, {"c", "qkv"}});
  const uint32_t attention_block = std::min(64u, s);
  p.launch(q, "flash_attention",
           {{"heads", text(a.heads)}, {"seq", text(s)}, {"head_dim", text(d / a.heads)},
            {"block_m", text(attention_block)}, {"block_n", text(attention_block)},
            {"causal", a.causal ? "1" : "0"}, {"dtype", ty}, {"layout", "packed"}},
           {{"qkv", "qkv"}, {"o", "attn"}});
  p.launch(q, "gemm_pipelined", gemm_args(a, s, d, d, "none", true),
           {{"a", "attn"}, {"b", "w_o"}, {"r", "x"}, {"c", "h1"}});
  norm("h1", "ln2", "h1n");
  p.launch(q, "gemm_pipelined", gemm_args(a, s, d, f, a.act, false),
           {{"a", "h1n"}, {"b", "w_up"}, {"c", "m"}});
  p.launch(q, "gemm_pipelined", gemm_args(a, s, f, d, "none", true),
           {{"a", "m"}, {"b", "w_down"}, {"r", "h1"}, {"c", "y"}});

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
