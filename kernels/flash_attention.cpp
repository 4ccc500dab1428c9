// `flash_attention`: O = softmax(Q K^T / sqrt(d)) V per head, causal or not,
// one pass over K and V with the online softmax (FlashAttention): per block
// of `block_m` query rows, for each block of `block_n` keys, S = Q K^T is a
// transposed dot (K is read as stored, row-major), the running row maximum
// m and sum l rescale the accumulator, P = exp(S - m) is cast to the input
// dtype and accumulated into O with an accumulating dot. The next K and V
// blocks are loaded (load_async) while this block computes. A causal block
// on the diagonal masks S with arange comparisons; blocks above it are
// skipped. Two layouts: `heads` (Q, K, V and O are (heads * seq) x d, head h
// in rows [h seq, (h + 1) seq)) and `packed`, as a QKV projection leaves
// them: one tensor QKV, seq x 3 heads d, whose column blocks are Q, K and V
// (head h at columns h d of its block), and O seq x heads d (head h at
// columns h d), read and written with a row stride. Grid: axis 0 the heads,
// axis 1 the query blocks, so with as many PEs as heads each PE runs one head.

#include "kernels/layer_ops.hpp"
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
  bool packed;
  uint32_t first, queries; ///< the queries computed: first .. first + queries - 1
};

/// Where Q, K, V and O of head h start, and their row stride (elements).
struct head_ptrs {
  tl::ptr q, k, v, o;
  uint64_t stride, o_stride;
};

head_ptrs head_of(const attention_args& a, const tensor_table& t, uint32_t h) {
  if (a.packed) {
    const uint64_t width = uint64_t{a.heads} * a.d, col = uint64_t{h} * a.d;
    const tl::ptr qkv = t.at("qkv");
    return {qkv + col, qkv + width + col, qkv + 2 * width + col, t.at("o") + col, 3 * width,
            width};
  }
  const uint64_t head = uint64_t{h} * a.seq * a.d; // elements before head h
  return {t.at("q") + head, t.at("k") + head, t.at("v") + head,
          t.at("o") + uint64_t{h} * a.queries * a.d, a.d, a.d};
}

void attention_body(tl::context& tl, const attention_args& a, const tensor_table& t) {
  const uint32_t h = tl.program_id(0), m0 = a.first + tl.program_id(1) * a.bm;
  const head_ptrs at = head_of(a, t, h);
  const uint32_t rows = std::min(a.bm, a.first + a.queries - m0);
  const tl::tensor q = tl.load(at.q + uint64_t{m0} * at.stride, {rows, a.d, at.stride});
  const float inf = std::numeric_limits<float>::infinity();
  tl::tensor m = tl.full(rows, 1, -inf);
  tl::tensor l = tl.zeros(rows, 1);
  tl::tensor acc = tl.zeros(rows, a.d);
  const uint32_t end = a.causal ? m0 + rows : a.seq; // keys a query block sees
  auto fetch = [&](tl::ptr base, uint32_t n0) {
    return tl.load_async(base + uint64_t{n0} * at.stride,
                         {std::min(a.bn, end - n0), a.d, at.stride});
  };
  tl::future next_k = fetch(at.k, 0), next_v = fetch(at.v, 0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(a.d));
  for (uint32_t n0 = 0; n0 < end; n0 += a.bn) {
    const tl::tensor k = next_k.get(), v = next_v.get();
    if (n0 + a.bn < end) { // the next blocks arrive while this one computes
      next_k = fetch(at.k, n0 + a.bn);
      next_v = fetch(at.v, n0 + a.bn);
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
  tl.store(at.o + uint64_t{m0 - a.first} * at.o_stride, tl.cast(tl.div(acc, l), a.type), at.o_stride);
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
            {"dtype", "f16", "element type of Q, K, V and O", {"f16", "bf16"}},
            {"layout", "heads", "heads: q, k, v, o each (heads x seq) x d; packed: qkv "
             "seq x 3 heads d (Q, K, V column blocks, head h at columns h d), o seq x heads d",
             {"heads", "packed"}},
            {"first_query", "0", "the first query row computed (a chunk of the sequence's "
             "queries; keys are the whole sequence)"},
            {"queries", "0", "query rows computed, from first_query (0: to the end); O has "
             "this many rows per head"}};
  d.prepare = [](const kernel_args& x) {
    attention_args a{x.u32("heads"),   x.u32("seq"),     x.u32("head_dim"),
                     x.u32("block_m"), x.u32("block_n"), x.u32("causal") == 1,
                     x.type("dtype"),   x.text("layout") == "packed",
                     x.u32("first_query"), x.u32("queries")};
    if (a.heads == 0 || a.seq == 0 || a.bm == 0 || a.bn == 0)
      throw std::invalid_argument(
        "--arg: kernel flash_attention needs heads, seq, block_m and block_n above 0");
    const uint32_t rows = a.heads * a.seq;
    if (rows / a.heads != a.seq)
      throw std::invalid_argument("--arg heads x seq: more than 2^32 - 1 rows");
    if (a.first >= a.seq || a.queries > a.seq - a.first)
      throw std::invalid_argument(fmt::format(
        "--arg first_query={} queries={}: kernel flash_attention computes queries within the "
        "sequence's {}", a.first, a.queries, a.seq));
    if (a.queries == 0)
      a.queries = a.seq - a.first;
    kernel_launch l;
    if (a.packed)
      l.tensors = {{"qkv", a.seq, 3 * a.heads * a.d, a.type},
                   {"o", a.queries, a.heads * a.d, a.type, true}};
    else
      l.tensors = {{"q", rows, a.d, a.type},
                   {"k", rows, a.d, a.type},
                   {"v", rows, a.d, a.type},
                   {"o", a.heads * a.queries, a.d, a.type, true}};
    l.grid = {a.heads, (a.queries + a.bm - 1) / a.bm, 1};
    l.body = [a](tl::context& tl, const tensor_table& t) { attention_body(tl, a, t); };
    l.reference = [a](const tensor_values& in) {
      const attention_shape shape{a.heads, a.seq, a.d, a.causal};
      const std::vector<double> all =
        a.packed ? attention_reference(shape, attention_packed_layout(shape), in.at("qkv"),
                                       in.at("qkv"), in.at("qkv"))
                 : attention_reference(shape, attention_heads_layout(shape), in.at("q"),
                                       in.at("k"), in.at("v"));
      // The computed queries' rows: one run (packed) or one per head.
      const size_t row = a.packed ? size_t{a.heads} * a.d : a.d;
      const uint32_t runs = a.packed ? 1 : a.heads;
      std::vector<double> o;
      for (uint32_t h = 0; h < runs; ++h) {
        const auto from = all.begin() + static_cast<std::ptrdiff_t>(
                                          (size_t{h} * a.seq + a.first) * row);
        o.insert(o.end(), from, from + static_cast<std::ptrdiff_t>(size_t{a.queries} * row));
      }
      return tensor_values{{"o", std::move(o)}};
    };
    return l;
  };
  return d;
}

} // namespace kb
