#include "kernels/layer_ops.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace kb {

namespace {

constexpr double gelu_cubic = 0.044715;
const double gelu_scale = std::sqrt(2.0 / std::numbers::pi);

/// Element (h, i, c) of Q (which 0), K (1) or V (2), and of O, in each layout.
size_t heads_at(const attention_shape& s, uint32_t h, uint32_t i, uint32_t c, int) {
  return (size_t{h} * s.seq + i) * s.d + c;
}
size_t heads_o_at(const attention_shape& s, uint32_t h, uint32_t i, uint32_t c) {
  return heads_at(s, h, i, c, 0);
}
size_t packed_at(const attention_shape& s, uint32_t h, uint32_t i, uint32_t c, int which) {
  const size_t width = size_t{s.heads} * s.d;
  return size_t{i} * 3 * width + size_t(which) * width + size_t{h} * s.d + c;
}
size_t packed_o_at(const attention_shape& s, uint32_t h, uint32_t i, uint32_t c) {
  return size_t{i} * s.heads * s.d + size_t{h} * s.d + c;
}

} // namespace

attention_layout attention_heads_layout(const attention_shape& s) {
  return {heads_at, heads_o_at, size_t{s.heads} * s.seq * s.d};
}

attention_layout attention_packed_layout(const attention_shape& s) {
  return {packed_at, packed_o_at, size_t{s.heads} * s.seq * s.d};
}

activation parse_activation(std::string_view name) {
  if (name == "none")
    return activation::none;
  if (name == "relu")
    return activation::relu;
  if (name == "gelu")
    return activation::gelu;
  throw std::invalid_argument(
    fmt::format("activation '{}': one of none, relu, gelu", name));
}

tl::tensor apply_activation(tl::context& tl, activation act, const tl::tensor& x) {
  switch (act) {
  case activation::none:
    return x;
  case activation::relu:
    return tl.relu(x);
  case activation::gelu: {
    const tl::tensor cube = tl.mul(tl.mul(x, x), x);
    const tl::tensor inner = tl.scale(tl.add(x, tl.scale(cube, gelu_cubic)), gelu_scale);
    return tl.mul(tl.scale(x, 0.5), tl.add_scalar(tl.unary(math_fn::tanh, inner), 1.0));
  }
  }
  return x;
}

void apply_activation(activation act, std::vector<double>& v) {
  if (act == activation::relu)
    for (double& x : v)
      x = std::max(0.0, x);
  else if (act == activation::gelu)
    for (double& x : v)
      x = 0.5 * x * (1.0 + std::tanh(gelu_scale * (x + gelu_cubic * x * x * x)));
}

std::vector<double> layernorm_reference(uint32_t rows, uint32_t cols, double eps,
                                        const std::vector<double>& x,
                                        const std::vector<double>& gamma,
                                        const std::vector<double>& beta) {
  std::vector<double> y(x.size());
  for (uint32_t r = 0; r < rows; ++r) {
    const double* row = &x[size_t{r} * cols];
    double mean = 0, var = 0;
    for (uint32_t c = 0; c < cols; ++c)
      mean += row[c];
    mean /= cols;
    for (uint32_t c = 0; c < cols; ++c)
      var += (row[c] - mean) * (row[c] - mean);
    var /= cols;
    const double inv = 1.0 / std::sqrt(var + eps);
    for (uint32_t c = 0; c < cols; ++c)
      y[size_t{r} * cols + c] = (row[c] - mean) * inv * gamma[c] + beta[c];
  }
  return y;
}

std::vector<double> attention_reference(const attention_shape& s, const attention_layout& l,
                                        const std::vector<double>& q,
                                        const std::vector<double>& k,
                                        const std::vector<double>& v) {
  std::vector<double> out(l.o_size);
  std::vector<double> p(s.seq), qi(s.d), o(s.d), kh(size_t{s.seq} * s.d), vh(kh.size());
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  for (uint32_t h = 0; h < s.heads; ++h) {
    for (uint32_t j = 0; j < s.seq; ++j) // this head's keys and values, packed
      for (uint32_t c = 0; c < s.d; ++c) {
        kh[size_t{j} * s.d + c] = k[l.q_at(s, h, j, c, 1)];
        vh[size_t{j} * s.d + c] = v[l.q_at(s, h, j, c, 2)];
      }
    for (uint32_t i = 0; i < s.seq; ++i) {
      for (uint32_t c = 0; c < s.d; ++c)
        qi[c] = q[l.q_at(s, h, i, c, 0)];
      const uint32_t keys = s.causal ? i + 1 : s.seq;
      double top = -std::numeric_limits<double>::infinity();
      for (uint32_t j = 0; j < keys; ++j) {
        const double* kj = &kh[size_t{j} * s.d];
        double dot = 0;
        for (uint32_t c = 0; c < s.d; ++c)
          dot += qi[c] * kj[c];
        p[j] = dot * scale;
        top = std::max(top, p[j]);
      }
      double sum = 0;
      std::fill(o.begin(), o.end(), 0.0);
      for (uint32_t j = 0; j < keys; ++j) {
        sum += p[j] = std::exp(p[j] - top);
        const double* vj = &vh[size_t{j} * s.d];
        for (uint32_t c = 0; c < s.d; ++c)
          o[c] += p[j] * vj[c];
      }
      for (uint32_t c = 0; c < s.d; ++c)
        out[l.o_at(s, h, i, c)] = o[c] / sum;
    }
  }
  return out;
}

} // namespace kb
