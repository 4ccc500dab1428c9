#pragma once
// The shared behaviour of every PE pipeline unit (seed ADR-0021 D4, DESIGN §4):
// lanes that serve tile tokens one at a time.
//
// A lane takes the head of its queue when idle (returning one credit to the
// sender), serves the token's current stage, and when the stage ends:
//  - if the next stage runs on this node and lane, serves it back-to-back;
//  - else forwards the token to the next stage's unit of this PE (its role
//    read from the plan, never hard-coded; the link to each role found once,
//    at construction), blocking while it has no credit for the receiving
//    queue and still holding the lane;
//  - after the last stage, sends the tile-done notice to the scheduler;
// and only then takes the next token. A unit kind implements `begin_stage`
// (timers, requests) and calls `end_stage` when its stage is over.

#include "messages/pipeline.capnp.h"
#include "runtime/engine/node.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"
#include "runtime/plan/pipeline_plan.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb {

class op_sink; // runtime/pipeline/op_sink.hpp

class unit_node : public node {
public:
  using lane_id = uint16_t;

  /// A lane serves the stage type `serves` from the queue of that number.
  struct lane_spec {
    std::string name;
    stage_type serves;
  };

  /// One lane per stage type, in this order, each named lane_name(type).
  unit_node(caf::actor_config& cfg, node_init init, const std::vector<stage_type>& serves);

protected:
  /// Start serving the current stage of the lane's token.
  virtual void begin_stage(lane_id lane, wire::Stage::Reader stage) = 0;
  /// The lane's current stage is over (now).
  void end_stage(lane_id lane);

  /// The lane's current stage's op record starts at `t` rather than when the
  /// lane began it: an atomic is recorded when its memory applied it, so
  /// the replay orders atomics of any PEs as the memory did (docs/adr/0027).
  void record_start(lane_id lane, SimTime t) { lanes_.at(lane).record_start = t; }

  /// The token a lane is serving.
  wire::TileToken::Reader token(lane_id lane) const;
  /// The same, to write into (a kernel load's bytes).
  wire::TileToken::Builder token_builder(lane_id lane) { return lanes_[lane].root; }
  /// The token's current stage (the plan's stage list is read once per
  /// stage, not on every access).
  wire::Stage::Reader stage(lane_id lane) const { return lanes_[lane].stage; }
  size_t lane_count() const { return lanes_.size(); }

  void on_queue_arrival(queue_id q) override;
  void on_unblocked(uint32_t link, queue_id q) override;
  void on_finish() override;
  std::string pending_work() const override;

private:
  struct lane_state {
    lane_spec spec;
    bool busy = false;
    bool blocked = false;
    message_body token;
    wire::TileToken::Builder root{nullptr}; ///< of `token`, found once per take
    wire::TileToken::Reader reader;         ///< the same, to read
    wire::Stage::Reader stage;              ///< its current stage
    /// Read once per take: the plan's stages, the current one's index, and
    /// the tile's names (a Cap'n Proto list lookup per stage was 4% of a
    /// PE's run).
    capnp::List<wire::Stage>::Reader stages;
    uint16_t stage_idx = 0;
    uint64_t command = 0;
    uint64_t tile = 0;
    SimTime stage_start;
    std::optional<SimTime> record_start; ///< set by record_start()
    SimTime blocked_since;
    uint64_t busy_ps = 0;
    uint64_t stall_ps = 0;
    uint64_t wait_ps = 0;
    uint64_t served = 0; ///< stages served
    uint64_t bytes = 0;
  };

  void try_take(lane_id lane);
  void start(lane_id lane);
  void forward(lane_id lane);
  void release(lane_id lane);
  service_tag tag(lane_id lane) const;
  /// The link to this PE's unit of `role`; throws naming it if none.
  uint32_t unit_link(unit_role role) const;
  /// The link to node `scheduler` (where a tile-done notice goes).
  uint32_t done_link(node_id scheduler);

  std::vector<lane_state> lanes_;
  unit_role role_ = unit_role::dma; ///< this unit's role in its PE
  /// Per role, the link to this PE's unit of it (none: no link).
  std::array<std::optional<uint32_t>, unit_role_count> unit_links_;
  node_id done_to_ = no_node; ///< the last scheduler seen, and its link
  uint32_t done_link_ = 0;
  std::optional<uint32_t> pe_key_; ///< for the op log's slot addresses
  op_sink* ops_ = nullptr; ///< the run's op log (null: off), found once
  /// Lanes blocked on (link, queue), in the order their tokens were held.
  std::map<std::pair<uint32_t, queue_id>, std::vector<lane_id>> waiting_;
};

} // namespace kb
