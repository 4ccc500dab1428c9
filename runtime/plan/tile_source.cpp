#include "runtime/plan/tile_source.hpp"

namespace kb {

uint32_t tile_source::body_tiles() const {
  const tile_plan first = tile(0);
  uint32_t n = 1;
  for (; n < size(); ++n) {
    const tile_plan t = tile(n);
    if (t.m != first.m || t.n != first.n)
      break;
  }
  return n;
}

pipeline_plan materialize(const tile_source& s) {
  pipeline_plan plan;
  const uint32_t n = s.size();
  plan.tiles.reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    plan.tiles.push_back(s.tile(i));
  return plan;
}

} // namespace kb
