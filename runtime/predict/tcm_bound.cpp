#include "runtime/predict/tcm_bound.hpp"

#include <stdexcept>

namespace kb {

SimTime tcm_lifetime(const tile_plan& tile, const service_model& timing) {
  SimTime t = timing.wire(); // the token's way to its first unit
  for (size_t i = 0; i < tile.stages.size(); ++i) {
    if (i > 0 && tile.stages[i - 1].type != tile.stages[i].type)
      t = t + timing.wire(); // on to the next unit (body_problem's token flow)
    t = t + timing.service(tile.stages[i]);
  }
  return t + timing.wire(); // the tile-done notice's way back
}

uint64_t tcm_bound_cycles(const tile_source& tiles, uint32_t body_tiles,
                          const service_model& timing, uint64_t reserve) {
  if (reserve == 0)
    throw std::invalid_argument("tcm_bound_cycles: a reserve of 0 bytes holds no tile");
  uint128 byte_ps = 0;
  const uint32_t n = std::min(body_tiles, tiles.size());
  for (uint32_t i = 0; i < n; ++i) {
    const tile_plan tile = tiles.tile(i);
    if (const uint64_t bytes = scheduler_tcm_bytes(tile))
      byte_ps += static_cast<uint128>(bytes) * tcm_lifetime(tile, timing).ps();
  }
  if (byte_ps == 0)
    return 0;
  const uint128 ps = (byte_ps + reserve - 1) / reserve;
  const uint64_t period = timing.clock().period_ps();
  const uint128 cycles = (ps + period - 1) / period;
  return cycles > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(cycles);
}

} // namespace kb
