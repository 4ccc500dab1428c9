#pragma once
// The pieces of a transformer layer that the shipped kernels and the
// shipped `decoder_layer` program share: the activations (as tl:: ops on a
// TCM tensor, and in the f64 reference), and the f64 references of
// LayerNorm and attention. Written against the kernel API alone.

#include "kernels/registry.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace kb {

/// An activation applied element by element. gelu is GELU by its tanh
/// approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
enum class activation : uint8_t { none, relu, gelu };

/// "none", "relu" or "gelu" (a kernel's `choices` have checked it);
/// std::invalid_argument otherwise.
activation parse_activation(std::string_view name);

/// act(x) as MATH commands on the PE (none: x itself).
tl::tensor apply_activation(tl::context& tl, activation act, const tl::tensor& x);
/// act(v) in place, in f64.
void apply_activation(activation act, std::vector<double>& v);

/// Y = (X - mean) / sqrt(var + eps) * gamma + beta per row of X (rows x cols).
std::vector<double> layernorm_reference(uint32_t rows, uint32_t cols, double eps,
                                        const std::vector<double>& x,
                                        const std::vector<double>& gamma,
                                        const std::vector<double>& beta);

/// The shape of multi-head attention: `heads` heads of `d` columns over
/// `seq` queries and keys; causal: query i sees keys 0..i.
struct attention_shape {
  uint32_t heads = 1, seq = 1, d = 1;
  bool causal = false;
};

/// O = softmax(Q K^T / sqrt(d)) V per head. Element (h, i, c) of Q, K, V and
/// O is at `at(h, i, c)` of its vector (`q_at` for Q, K and V, `o_at` for
/// O, which has `o_size` elements): so one function serves every layout.
struct attention_layout {
  size_t (*q_at)(const attention_shape&, uint32_t h, uint32_t i, uint32_t c, int which);
  size_t (*o_at)(const attention_shape&, uint32_t h, uint32_t i, uint32_t c);
  size_t o_size;
};
/// Q, K, V and O each (heads x seq) x d, head h in rows [h seq, (h + 1) seq).
attention_layout attention_heads_layout(const attention_shape& s);
/// Q, K and V the column blocks of one seq x 3 heads d tensor (head h at
/// columns h d of its block), O seq x heads d (head h at columns h d).
attention_layout attention_packed_layout(const attention_shape& s);
std::vector<double> attention_reference(const attention_shape& s, const attention_layout& l,
                                        const std::vector<double>& q,
                                        const std::vector<double>& k,
                                        const std::vector<double>& v);

} // namespace kb
