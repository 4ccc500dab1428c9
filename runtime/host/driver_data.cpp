#include "runtime/host/driver_data.hpp"

#include "runtime/data/dtype_convert.hpp"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace kb {

namespace {

using matd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Random values in [lo, hi) for tensor number `index` of PE number `pe`,
/// quantized to `v`'s dtype and written to the image; returns the values
/// the memory holds.
matd deploy_random(memory_image& image, const tensor_view& v, uint64_t seed, size_t pe,
                   size_t index) {
  // Integers get a wider range than [-1, 1), which would round to -1, 0, 1.
  const bool integer = v.type == dtype::i8 || v.type == dtype::i32;
  const float lo = integer ? -8.0f : -1.0f, hi = -lo;
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + pe * 64 + index + 1);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(v.elements());
  for (float& x : values)
    x = dist(rng);
  std::vector<uint8_t> bytes(values.size() * dtype_bytes(v.type));
  encode_f32(v.type, values, bytes);
  decode_f32(v.type, bytes, values);
  image.write_rows(v.address, v.row_stride, v.rows, v.row_bytes(), bytes);
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
           values.data(), v.rows, v.cols)
    .cast<double>();
}

/// What the replay does for an element-wise op on the accumulator.
double unary(math_op op, double x, double value) {
  switch (op) {
  case math_op::relu: return x > 0 ? x : 0;
  case math_op::exp: return std::exp(x);
  case math_op::rsqrt: return 1 / std::sqrt(x);
  case math_op::scale: return x * value;
  case math_op::dequant: return x * value;
  default: return x;
  }
}

/// Applies epilogue op `e` to `acc`, whose operand (if any) holds `operand`.
void apply(const epilogue_op& e, const matd* operand, matd& acc) {
  if (!takes_operand(e.op) || (e.op == math_op::dequant && !operand)) {
    acc = acc.unaryExpr([&](double x) { return unary(e.op, x, e.value); });
    return;
  }
  const bool add = e.op == math_op::bias || e.op == math_op::add;
  for (Eigen::Index r = 0; r < acc.rows(); ++r) {
    const Eigen::Index src = operand->rows() == 1 ? 0 : r;
    if (add)
      acc.row(r) += operand->row(src);
    else
      acc.row(r) = acc.row(r).cwiseProduct(operand->row(src));
  }
}

/// Row-major values of `m`, in f64: the verifier rounds them to the output's dtype.
std::vector<double> values_of(const matd& m) {
  std::vector<double> out(static_cast<size_t>(m.size()));
  Eigen::Map<matd>(out.data(), m.rows(), m.cols()) = m;
  return out;
}

} // namespace

driver_data make_driver_data(const std::vector<std::string>& pes,
                             const std::vector<pe_command>& commands, uint64_t seed,
                             bool reference) {
  driver_data d;
  d.image = std::make_shared<memory_image>();
  for (size_t p = 0; p < pes.size() && p < commands.size(); ++p) {
    const std::string prefix = pes.size() == 1 ? "" : pes[p] + ".";
    auto add = [&](const std::string& name, const tensor_view& v, bool output) {
      d.tensors.push_back({prefix + name, v, output});
    };
    if (const auto* g = std::get_if<gemm_plan_args>(&commands[p])) {
      const dtype out = g->out_dtype.value_or(g->in_dtype);
      const tensor_view a = packed_view(g->a_addr, g->m, g->k, g->in_dtype);
      const tensor_view b = packed_view(g->b_addr, g->k, g->n, g->in_dtype);
      const tensor_view c = packed_view(g->c_addr, g->m, g->n, out);
      add("a", a, false);
      add("b", b, false);
      add("c", c, true);
      const matd av = deploy_random(*d.image, a, seed, p, 0);
      const matd bv = deploy_random(*d.image, b, seed, p, 1);
      std::vector<matd> operands(g->epilogue.size());
      for (size_t i = 0; i < g->epilogue.size(); ++i) {
        const epilogue_op& e = g->epilogue[i];
        const std::string name = fmt::format("{}{}", to_string(e.op), i);
        if (!e.operand) {
          if (takes_operand(e.op) && e.op != math_op::dequant)
            throw std::invalid_argument(fmt::format(
              "epilogue op #{} '{}' has no operand tensor: its data cannot be replayed", i,
              to_string(e.op)));
          continue;
        }
        add(name, *e.operand, false);
        operands[i] = deploy_random(*d.image, *e.operand, seed, p, 2 + i);
      }
      if (!reference)
        continue;
      matd acc = matd::Zero(g->m, g->n);
      for (uint32_t k0 = 0; k0 < g->k; k0 += g->tile_k) {
        const uint32_t tk = std::min(g->tile_k, g->k - k0);
        acc.noalias() += av.middleCols(k0, tk) * bv.middleRows(k0, tk);
        for (size_t i = 0; i < g->epilogue.size(); ++i)
          if (g->epilogue[i].scope == epilogue_scope::k_tile)
            apply(g->epilogue[i], g->epilogue[i].operand ? &operands[i] : nullptr, acc);
      }
      for (size_t i = 0; i < g->epilogue.size(); ++i)
        if (g->epilogue[i].scope == epilogue_scope::output_tile)
          apply(g->epilogue[i], g->epilogue[i].operand ? &operands[i] : nullptr, acc);
      d.expected[prefix + "c"] = values_of(acc);
    } else if (const auto* m = std::get_if<math_plan_args>(&commands[p])) {
      if (takes_operand(m->op))
        throw std::invalid_argument(fmt::format(
          "a MATH command of '{}' names no second operand: its data cannot be replayed (relu, "
          "exp, rsqrt and scale can)",
          to_string(m->op)));
      const tensor_view a = packed_view(m->src_addr, m->m, m->n, m->in_dtype);
      const tensor_view c = packed_view(m->dst_addr, m->m, m->n, m->out_dtype.value_or(m->in_dtype));
      add("a", a, false);
      add("c", c, true);
      const matd av = deploy_random(*d.image, a, seed, p, 0);
      if (reference)
        d.expected[prefix + "c"] =
          values_of(av.unaryExpr([&](double x) { return unary(m->op, x, 1.0); }));
    } else {
      throw std::invalid_argument("a simple command has no data of the driver's");
    }
  }
  return d;
}

} // namespace kb
