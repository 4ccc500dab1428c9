#pragma once
// The II the scheduler's reserved TCM allows a steady-state body
// (docs/adr/0031-tcm-capacity.md). A tile holds its buffers
// (scheduler_tcm_bytes) from the moment PE_SCHEDULER feeds it until its
// tile-done notice is back; in a steady state of one body per II the bytes
// in flight average sum_i(bytes_i * lifetime_i) / II, which the reserve
// bounds. The lifetime is the tile's unloaded walk: a wire to its first
// unit, its stages' services chained as the body problem chains them (a
// wire between units, none where a lane keeps the token), and a wire back.

#include "runtime/plan/tile_source.hpp"
#include "runtime/predict/service_model.hpp"
#include "runtime/sim_time.hpp"

#include <cstdint>

namespace kb {

/// A tile's unloaded lifetime in the scheduler's TCM: from its feed to its
/// tile-done notice's arrival.
SimTime tcm_lifetime(const tile_plan& tile, const service_model& timing);

/// The smallest II, in whole PE cycles, at which the first `body_tiles`
/// tiles of `tiles` fit in `reserve` bytes on average: ceil(sum_i(bytes_i *
/// lifetime_i) / reserve) rounded up to a cycle. 0 when no tile holds any.
uint64_t tcm_bound_cycles(const tile_source& tiles, uint32_t body_tiles,
                          const service_model& timing, uint64_t reserve);

} // namespace kb
