#include "runtime/plan/math_plan.hpp"

#include "runtime/plan/detail/tiling.hpp"

#include <string_view>
#include <vector>

namespace kb {

namespace {

constexpr std::string_view generator = "generate_math_plan";

} // namespace

pipeline_plan generate_math_plan(const math_plan_args& args) {
  const dtype in = args.in_dtype;
  const dtype out = args.out_dtype.value_or(in);
  detail::require_nonzero(generator, "M", args.m);
  detail::require_nonzero(generator, "N", args.n);
  detail::require_nonzero(generator, "tile_m", args.tile_m);
  detail::require_nonzero(generator, "tile_n", args.tile_n);
  detail::require_region(generator, "src", args.src_addr, args.m, args.n, in);
  detail::require_region(generator, "dst", args.dst_addr, args.m, args.n, out);
  const auto m_tiles = detail::tile_count(args.m, args.tile_m);
  const auto n_tiles = detail::tile_count(args.n, args.tile_n);
  const uint64_t total = uint64_t{m_tiles} * n_tiles;
  detail::require_tile_total(generator, total);
  const auto ids = detail::make_pe_unit_ids(generator, args.pe_prefix);

  pipeline_plan plan;
  plan.tiles.reserve(total);
  uint32_t tile_id = 0;
  for (uint32_t mi = 0; mi < m_tiles; ++mi) {
    const auto tm = detail::tile_extent(args.m, args.tile_m, mi);
    const uint32_t row0 = mi * args.tile_m; // < M, so no overflow
    for (uint32_t ni = 0; ni < n_tiles; ++ni) {
      const auto tn = detail::tile_extent(args.n, args.tile_n, ni);
      const uint32_t col0 = ni * args.tile_n;

      stage_params base;
      base.tm = tm;
      base.tn = tn;
      base.in_dtype = in;
      base.out_dtype = out;
      base.last_k = true;

      std::vector<stage> stages;
      stages.reserve(5);
      auto p = base;
      detail::set_dma_region(p, 'A',
                             {args.src_addr, args.n, row0, col0, tm, tn, in});
      stages.push_back({stage_type::dma_read, ids.dma, p});
      p = base;
      p.bytes = uint64_t{tm} * tn * dtype_bytes(in);
      stages.push_back({stage_type::fetch, ids.fetch_store, p});
      p = base;
      p.elements = uint64_t{tm} * tn;
      p.op = args.op;
      stages.push_back({stage_type::math, ids.math, p});
      p = base;
      p.operand = 'C';
      p.bytes = uint64_t{tm} * tn * dtype_bytes(out);
      stages.push_back({stage_type::store, ids.fetch_store, p});
      p = base;
      detail::set_dma_region(p, 'C',
                             {args.dst_addr, args.n, row0, col0, tm, tn, out});
      stages.push_back({stage_type::dma_write, ids.dma, p});

      plan.tiles.push_back(tile_plan{tile_id++, mi, ni, 0, std::move(stages)});
    }
  }
  return plan;
}

} // namespace kb
