#pragma once
// The tiles of a composite command, one at a time in feed order. PE_SCHEDULER
// feeds from a source, so a command of 4,096 tiles holds the plan of the
// tiles in flight, not of all of them; a pipeline_plan is all of a source's
// tiles (what tests and the II prediction look at).

#include "runtime/plan/pipeline_plan.hpp"

#include <cstdint>
#include <memory>

namespace kb {

class tile_source {
public:
  virtual ~tile_source() = default;
  /// Tiles of the command (at least 1).
  virtual uint32_t size() const = 0;
  /// Tile `id` (< size()), as the whole plan has it at index `id`.
  virtual tile_plan tile(uint32_t id) const = 0;
  /// The leading tiles that share tile 0's output tile (m, n): the
  /// steady-state body the II prediction schedules. This walks the tiles;
  /// a source that knows the count says it at once.
  virtual uint32_t body_tiles() const;
};

/// Every tile of `s`, in order.
pipeline_plan materialize(const tile_source& s);

/// A source over a plan already built (a simple command's one tile).
class plan_tiles final : public tile_source {
public:
  explicit plan_tiles(pipeline_plan p) : plan_(std::move(p)) {}
  uint32_t size() const override { return static_cast<uint32_t>(plan_.tiles.size()); }
  tile_plan tile(uint32_t id) const override { return plan_.tiles.at(id); }

private:
  pipeline_plan plan_;
};

} // namespace kb
