#include "runtime/plan/math_plan.hpp"

#include "runtime/plan/detail/tiling.hpp"

#include <string_view>
#include <vector>

namespace kb {

namespace {

constexpr std::string_view generator = "generate_math_plan";

} // namespace

namespace {

/// The tiles of one element-wise command, each built when asked for.
class math_source final : public tile_source {
public:
  explicit math_source(const math_plan_args& a)
      : args_(a), in_(a.in_dtype), out_(a.out_dtype.value_or(a.in_dtype)),
        n_tiles_(detail::tile_count(a.n, a.tile_n)) {
    const uint64_t total = uint64_t{detail::tile_count(a.m, a.tile_m)} * n_tiles_;
    detail::require_tile_total(generator, total);
    size_ = static_cast<uint32_t>(total);
  }

  uint32_t size() const override { return size_; }
  tile_plan tile(uint32_t id) const override {
    // m outer, n inner.
    const uint32_t mi = id / n_tiles_, ni = id % n_tiles_;
    const auto tm = detail::tile_extent(args_.m, args_.tile_m, mi);
    const uint32_t row0 = mi * args_.tile_m; // < M, so no overflow
    const auto tn = detail::tile_extent(args_.n, args_.tile_n, ni);
    const uint32_t col0 = ni * args_.tile_n;

    stage_params base;
    base.tm = tm;
    base.tn = tn;
    base.in_dtype = in_;
    base.out_dtype = out_;
    base.last_k = true;

    std::vector<stage> stages;
    stages.reserve(5);
    auto p = base;
    detail::set_dma_region(p, 'A', {args_.src_addr, args_.n, row0, col0, tm, tn, in_});
    stages.push_back({stage_type::dma_read, unit_role::dma, p});
    p = base;
    p.bytes = uint64_t{tm} * tn * dtype_bytes(in_);
    stages.push_back({stage_type::fetch, unit_role::fetch_store, p});
    p = base;
    p.elements = uint64_t{tm} * tn;
    p.op = args_.op;
    stages.push_back({stage_type::math, unit_role::math, p});
    p = base;
    p.operand = 'C';
    p.bytes = uint64_t{tm} * tn * dtype_bytes(out_);
    stages.push_back({stage_type::store, unit_role::fetch_store, p});
    p = base;
    detail::set_dma_region(p, 'C', {args_.dst_addr, args_.n, row0, col0, tm, tn, out_});
    stages.push_back({stage_type::dma_write, unit_role::dma, p});
    return tile_plan{id, mi, ni, 0, std::move(stages)};
  }

private:
  const math_plan_args args_;
  const dtype in_, out_;
  const uint32_t n_tiles_;
  uint32_t size_ = 0;
};

} // namespace

std::unique_ptr<tile_source> math_tiles(const math_plan_args& args) {
  const dtype out = args.out_dtype.value_or(args.in_dtype);
  detail::require_nonzero(generator, "M", args.m);
  detail::require_nonzero(generator, "N", args.n);
  detail::require_nonzero(generator, "tile_m", args.tile_m);
  detail::require_nonzero(generator, "tile_n", args.tile_n);
  detail::require_region(generator, "src", args.src_addr, args.m, args.n, args.in_dtype);
  detail::require_region(generator, "dst", args.dst_addr, args.m, args.n, out);
  return std::make_unique<math_source>(args);
}

pipeline_plan generate_math_plan(const math_plan_args& args) {
  return materialize(*math_tiles(args));
}

} // namespace kb
