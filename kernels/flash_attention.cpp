// `flash_attention`: O = softmax(Q K^T / sqrt(d)) V per head, causal or not,
// one pass over K and V with the online softmax (FlashAttention): per block
// of `block_m` query rows, for each block of `block_n` keys, S = Q K^T is a
// transposed dot (K is read as stored, row-major), the running row maximum
// m and sum l rescale the accumulator, P = exp(S - m) is cast to the input
// dtype and accumulated into O with an accumulating dot. The next K and V
// blocks are loaded (load_async) while this block computes. A causal block
// on the diagonal masks S with arange comparisons; blocks above it are
// skipped. Q, K, V and O are (heads * seq) x d, head h in rows [h seq,
// (h + 1) seq). Grid: axis 0 the heads, axis 1 the query blocks, so with as
// many PEs as heads each PE runs one head.

#include "kernels/shipped.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kb {

namespace {

struct attention_args {
  uint32_t heads, seq, d, bm, bn;
  bool causal;
  dtype type;
};

void attention_body(tl::context& tl, const attention_args& a, const tensor_table& t) {
  const uint32_t h = tl.program_id(0), m0 = tl.program_id(1) * a.bm;
  const uint64_t head = uint64_t{h} * a.seq * a.d; // elements before head h
  const tl::ptr Q = t.at("q") + head, K = t.at("k") + head, V = t.at("v") + head;
  const uint32_t rows = std::min(a.bm, a.seq - m0);
  const tl::tensor q = tl.load(Q + uint64_t{m0} * a.d, {rows, a.d});
  const float inf = std::numeric_limits<float>::infinity();
  tl::tensor m = tl.full(rows, 1, -inf);
  tl::tensor l = tl.zeros(rows, 1);
  tl::tensor acc = tl.zeros(rows, a.d);
  const uint32_t end = a.causal ? m0 + rows : a.seq; // keys a query block sees
  auto fetch = [&](tl::ptr base, uint32_t n0) {
    return tl.load_async(base + uint64_t{n0} * a.d, {std::min(a.bn, end - n0), a.d});
  };
  tl::future next_k = fetch(K, 0), next_v = fetch(V, 0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(a.d));
  for (uint32_t n0 = 0; n0 < end; n0 += a.bn) {
    const tl::tensor k = next_k.get(), v = next_v.get();
    if (n0 + a.bn < end) { // the next blocks arrive while this one computes
      next_k = fetch(K, n0 + a.bn);
      next_v = fetch(V, n0 + a.bn);
    }
    tl::tensor s = tl.scale(tl.dot(q, k, {.trans_b = true}), scale); // rows x cols
    if (a.causal && n0 + k.rows() > m0) { // the diagonal block: key j <= query i
      const tl::tensor keep = tl.le(tl.arange(k.rows(), static_cast<int32_t>(n0), 1),
                                    tl.arange(rows, static_cast<int32_t>(m0), 0));
      s = tl.where(keep, s, tl.full(1, 1, -inf));
    }
    const tl::tensor m_new = tl.maximum(m, tl.max(s, 1));
    const tl::tensor p = tl.exp(tl.sub(s, m_new));
    const tl::tensor alpha = tl.exp(tl.sub(m, m_new));
    l = tl.add(tl.mul(l, alpha), tl.sum(p, 1));
    acc = tl.dot(tl.cast(p, a.type), v, tl.mul(acc, alpha));
    m = m_new;
  }
  tl.store(t.at("o") + head + uint64_t{m0} * a.d, tl.cast(tl.div(acc, l), a.type));
}

/// The f64 reference: softmax(Q K^T / sqrt(d)) V per head.
std::vector<double> attention_reference(const attention_args& a, const std::vector<double>& q,
                                        const std::vector<double>& k,
                                        const std::vector<double>& v) {
  std::vector<double> out(size_t{a.heads} * a.seq * a.d);
  std::vector<double> s(a.seq);
  const double scale = 1.0 / std::sqrt(static_cast<double>(a.d));
  for (uint32_t h = 0; h < a.heads; ++h) {
    const size_t base = size_t{h} * a.seq * a.d;
    for (uint32_t i = 0; i < a.seq; ++i) {
      const uint32_t keys = a.causal ? i + 1 : a.seq;
      double top = -std::numeric_limits<double>::infinity();
      for (uint32_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (uint32_t c = 0; c < a.d; ++c)
          dot += q[base + size_t{i} * a.d + c] * k[base + size_t{j} * a.d + c];
        s[j] = dot * scale;
        top = std::max(top, s[j]);
      }
      double sum = 0;
      for (uint32_t j = 0; j < keys; ++j)
        sum += s[j] = std::exp(s[j] - top);
      for (uint32_t c = 0; c < a.d; ++c) {
        double o = 0;
        for (uint32_t j = 0; j < keys; ++j)
          o += s[j] * v[base + size_t{j} * a.d + c];
        out[base + size_t{i} * a.d + c] = o / sum;
      }
    }
  }
  return out;
}

} // namespace

kernel_def flash_attention_kernel() {
  kernel_def d;
  d.name = "flash_attention";
  d.description = "O = softmax(Q K^T / sqrt(d)) V per head with the online softmax, K^T by a "
                  "transposed dot, K/V blocks double-buffered; causal or not";
  d.args = {{"heads", "4", "attention heads (grid axis 0)"},
            {"seq", "256", "sequence length (queries and keys)"},
            {"head_dim", "64", "d, the columns of Q, K, V and O", {"64", "128"}},
            {"block_m", "64", "query rows per program (grid axis 1)"},
            {"block_n", "64", "keys per step"},
            {"causal", "0", "1: query i sees keys 0..i only", {"0", "1"}},
            {"dtype", "f16", "element type of Q, K, V and O", {"f16", "bf16"}}};
  d.prepare = [](const kernel_args& x) {
    attention_args a{x.u32("heads"),   x.u32("seq"),     x.u32("head_dim"),
                     x.u32("block_m"), x.u32("block_n"), x.u32("causal") == 1,
                     x.type("dtype")};
    if (a.heads == 0 || a.seq == 0 || a.bm == 0 || a.bn == 0)
      throw std::invalid_argument(
        "--arg: kernel flash_attention needs heads, seq, block_m and block_n above 0");
    const uint32_t rows = a.heads * a.seq;
    if (rows / a.heads != a.seq)
      throw std::invalid_argument("--arg heads x seq: more than 2^32 - 1 rows");
    kernel_launch l;
    l.tensors = {{"q", rows, a.d, a.type},
                 {"k", rows, a.d, a.type},
                 {"v", rows, a.d, a.type},
                 {"o", rows, a.d, a.type, true}};
    l.grid = {a.heads, (a.seq + a.bm - 1) / a.bm, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { attention_body(tl, a, t); };
    l.reference = [a](const tensor_values& in) {
      return tensor_values{{"o", attention_reference(a, in.at("q"), in.at("k"), in.at("v"))}};
    };
    return l;
  };
  return d;
}

} // namespace kb
