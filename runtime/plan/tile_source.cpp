#include "runtime/plan/tile_source.hpp"

namespace kb {

pipeline_plan materialize(const tile_source& s) {
  pipeline_plan plan;
  const uint32_t n = s.size();
  plan.tiles.reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    plan.tiles.push_back(s.tile(i));
  return plan;
}

} // namespace kb
