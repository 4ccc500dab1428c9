#include "runtime/plan/gemm_plan.hpp"

#include "runtime/plan/detail/tiling.hpp"
#include "runtime/plan/plan_error.hpp"

#include <string_view>

namespace kb {

namespace {

constexpr std::string_view generator = "generate_gemm_plan";

void validate(const gemm_plan_args& args, dtype out) {
  detail::require_nonzero(generator, "M", args.m);
  detail::require_nonzero(generator, "K", args.k);
  detail::require_nonzero(generator, "N", args.n);
  detail::require_nonzero(generator, "tile_m", args.tile_m);
  detail::require_nonzero(generator, "tile_k", args.tile_k);
  detail::require_nonzero(generator, "tile_n", args.tile_n);
  for (size_t i = 0; i < args.epilogue.size(); ++i) {
    const auto& e = args.epilogue[i];
    const std::string what = std::string{generator} + ": epilogue op #" + std::to_string(i) +
                             " '" + std::string{to_string(e.op)} + "'";
    if (!e.scope)
      throw plan_error(what + " has no scope (expected k_tile or output_tile)");
    if (!e.operand)
      continue;
    if (!takes_operand(e.op))
      throw plan_error(what + " takes no operand (only bias, add, mul and dequant do)");
    const tensor_view& v = *e.operand;
    const bool row = v.rows == 1 && v.cols == args.n;
    const bool matrix = v.rows == args.m && v.cols == args.n;
    if (!row && !(matrix && (e.op == math_op::add || e.op == math_op::mul)))
      throw plan_error(what + ": its operand is " + std::to_string(v.rows) + "x" +
                       std::to_string(v.cols) + "; expected 1x" + std::to_string(args.n) +
                       (e.op == math_op::add || e.op == math_op::mul
                          ? " or " + std::to_string(args.m) + "x" + std::to_string(args.n)
                          : std::string{}));
    if (v.rows > 1 && v.row_stride < v.row_bytes())
      throw plan_error(what + ": its operand's row stride " + std::to_string(v.row_stride) +
                       " B is below its row of " + std::to_string(v.row_bytes()) + " B");
    detail::require_region(generator, "the epilogue operand", v.address, v.rows,
                           static_cast<uint32_t>(v.row_stride / dtype_bytes(v.type)), v.type);
  }
  detail::require_region(generator, "A", args.a_addr, args.m, args.k,
                         args.in_dtype);
  detail::require_region(generator, "B", args.b_addr, args.k, args.n,
                         args.in_dtype);
  detail::require_region(generator, "C", args.c_addr, args.m, args.n, out);
}

/// Ops of `scope`, in the given order.
std::vector<epilogue_op> ops_of(const std::vector<epilogue_op>& epilogue,
                                epilogue_scope scope) {
  std::vector<epilogue_op> ops;
  for (const auto& e : epilogue)
    if (e.scope == scope)
      ops.push_back(e);
  return ops;
}

/// Everything that is the same for all tiles of one plan.
struct gemm_context {
  const gemm_plan_args& args;
  dtype in;
  dtype out;
  std::vector<epilogue_op> k_ops;
  std::vector<epilogue_op> out_ops;
  uint32_t k_tiles;
};

/// Stage sequence of tile (mi, ni, ki).
std::vector<stage> gemm_tile_stages(const gemm_context& ctx, uint32_t mi,
                                    uint32_t ni, uint32_t ki) {
  const auto& args = ctx.args;
  const auto tm = detail::tile_extent(args.m, args.tile_m, mi);
  const auto tk = detail::tile_extent(args.k, args.tile_k, ki);
  const auto tn = detail::tile_extent(args.n, args.tile_n, ni);
  const uint32_t row0 = mi * args.tile_m; // < M, so no overflow
  const uint32_t col0 = ni * args.tile_n;
  const uint32_t k0 = ki * args.tile_k;
  const bool last_k = ki + 1 == ctx.k_tiles;

  stage_params base;
  base.tm = tm;
  base.tk = tk;
  base.tn = tn;
  base.in_dtype = ctx.in;
  base.out_dtype = ctx.out;
  base.last_k = last_k;

  // Each stage is made in place from `base` (a stage's parameters are
  // 224 bytes: one copy a stage, not three; this runs once per tile).
  std::vector<stage> stages;
  stages.reserve(4 + ctx.k_ops.size() + (last_k ? 2 + ctx.out_ops.size() : 0));
  auto push = [&stages, &base](stage_type type) -> stage_params& {
    stage& s = stages.emplace_back(); // (no parenthesised aggregate init in clang 14)
    s.type = type;
    s.unit = unit_of(type);
    s.params = base;
    return s.params;
  };
  auto push_math = [&](const epilogue_op& e, epilogue_scope scope) {
    stage_params& p = push(stage_type::math);
    p.elements = uint64_t{tm} * tn;
    p.op = e.op;
    p.scope = scope;
    p.value = e.value;
    if (e.operand)
      p.operand_block = e.operand->block(e.operand->rows == 1 ? 0 : row0, col0,
                                         e.operand->rows == 1 ? 1 : tm, tn);
  };
  // A pinned operand is read in place: the tile's block of it.
  auto pinned = [](uint64_t addr, uint32_t ld, uint32_t r0, uint32_t c0, uint32_t rows,
                   uint32_t cols, dtype t) {
    return tensor_view{addr, 0, ld, uint64_t{ld} * dtype_bytes(t), t}.block(r0, c0, rows, cols);
  };

  if (!args.a_pinned)
    detail::set_dma_region(push(stage_type::dma_read), 'A',
                           {args.a_addr, args.k, row0, k0, tm, tk, ctx.in});
  if (!args.b_pinned)
    detail::set_dma_region(push(stage_type::dma_read), 'B',
                           {args.b_addr, args.n, k0, col0, tk, tn, ctx.in});
  push(stage_type::fetch).bytes = (uint64_t{tm} * tk + uint64_t{tk} * tn) * dtype_bytes(ctx.in);
  {
    stage_params& p = push(stage_type::gemm);
    if (args.a_pinned)
      p.pinned_a = pinned(args.a_addr, args.k, row0, k0, tm, tk, ctx.in);
    if (args.b_pinned)
      p.pinned_b = pinned(args.b_addr, args.n, k0, col0, tk, tn, ctx.in);
  }
  for (const auto& e : ctx.k_ops)
    push_math(e, epilogue_scope::k_tile);
  if (!last_k)
    return stages; // the accumulator stays in registers
  for (const auto& e : ctx.out_ops)
    push_math(e, epilogue_scope::output_tile);
  {
    stage_params& p = push(stage_type::store);
    p.operand = 'C';
    p.bytes = uint64_t{tm} * tn * dtype_bytes(ctx.out);
  }
  detail::set_dma_region(push(stage_type::dma_write), 'C',
                         {args.c_addr, args.n, row0, col0, tm, tn, ctx.out});
  return stages;
}

/// The tiles of one GEMM command, each built when asked for.
class gemm_source final : public tile_source {
public:
  explicit gemm_source(const gemm_plan_args& a)
      : args_(a), ctx_{args_,
                       args_.in_dtype,
                       args_.out_dtype.value_or(args_.in_dtype),
                       ops_of(args_.epilogue, epilogue_scope::k_tile),
                       ops_of(args_.epilogue, epilogue_scope::output_tile),
                       detail::tile_count(args_.k, args_.tile_k)},
        n_tiles_(detail::tile_count(args_.n, args_.tile_n)) {
    const uint64_t total =
      uint64_t{detail::tile_count(args_.m, args_.tile_m)} * n_tiles_ * ctx_.k_tiles;
    detail::require_tile_total(generator, total);
    size_ = static_cast<uint32_t>(total);
  }
  gemm_source(const gemm_source&) = delete;
  gemm_source& operator=(const gemm_source&) = delete;

  uint32_t size() const override { return size_; }
  tile_plan tile(uint32_t id) const override {
    // m outer, then n, then k innermost.
    const uint32_t ki = id % ctx_.k_tiles, rest = id / ctx_.k_tiles;
    const uint32_t ni = rest % n_tiles_, mi = rest / n_tiles_;
    return tile_plan{id, mi, ni, ki, gemm_tile_stages(ctx_, mi, ni, ki)};
  }
  /// k innermost: the first output tile's K tiles come first.
  uint32_t body_tiles() const override { return ctx_.k_tiles; }

private:
  const gemm_plan_args args_;
  const gemm_context ctx_; // refers to args_
  const uint32_t n_tiles_;
  uint32_t size_ = 0;
};

} // namespace

std::unique_ptr<tile_source> gemm_tiles(const gemm_plan_args& args) {
  validate(args, args.out_dtype.value_or(args.in_dtype));
  return std::make_unique<gemm_source>(args);
}

pipeline_plan generate_gemm_plan(const gemm_plan_args& args) {
  return materialize(*gemm_tiles(args));
}

} // namespace kb
