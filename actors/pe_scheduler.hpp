#pragma once
// PE_SCHEDULER: the sole dispatcher of a PE (seed ADR-0014 D1-D3, seed
// seed ADR-0021 D2, docs/adr/0025-out-of-order-dispatch.md). On a command's
// arrival it plans the tiles (0 time, runtime/plan) and enters the command
// in its in-flight table with the commands it depends on. Each time
// something changes (a command arrives or completes, a queue gets credit,
// a modulo release time comes) it walks the table oldest first and feeds
// every command whose dependencies are done and whose first stage's queue
// is free: no earlier command is feeding it or blocked on it. So a load
// overtakes a store that waits for a compute result, while two commands
// never interleave their tiles in one engine queue. Tile-done notices
// complete a command exactly once; its command-done notice (the completion
// queue) leaves in the picosecond the last one is handled.

#include "runtime/plan/tile_source.hpp"
#include "runtime/predict/body_predictor.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/command_table.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/pipeline_stats.hpp"

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>
#include <span>

namespace kb {

class pe_scheduler final : public node {
public:
  struct config {
    bool modulo_feed = false; ///< feed_policy: modulo
    const topology_spec* topology = nullptr;
    const kind_registry* kinds = nullptr;     ///< the registry that built it (for the prediction)
    std::shared_ptr<const fabric_map> fabric; ///< the machine's routes (for the prediction)
    /// SchedulerReservedTCM in bytes (its PE's pe_tcm scheduler_reserved_kib;
    /// seed ADR-0014 D5.1): the buffers of the tiles in flight never exceed
    /// it, and a tile whose buffers alone do is refused
    /// (docs/adr/0031-tcm-capacity.md). No pe_tcm: no limit.
    std::optional<uint64_t> tcm_reserve;
  };
  static const impl_decl<config>& decl();
  /// A tile's first stage, to any unit of the PE; command-done notices.
  static std::span<const port_doc> ports() {
    static constexpr port_doc p[] = {{"dma", "pe_dma"},   {"fetch_store", "pe_fetch_store"},
                                     {"gemm", "pe_gemm"}, {"math", "pe_math"},
                                     {"cpu", "pe_cpu"}};
    return p;
  }
  static config read_config(const param_reader& p, const machine_context& ctx);

  pe_scheduler(caf::actor_config& cfg, node_init init, config c);

protected:
  void on_message(sim_event& ev) override;
  void on_unblocked(uint32_t link, queue_id q) override;
  void on_finish() override;
  std::string pending_work() const override;

private:
  struct command_state {
    uint64_t id = 0;
    uint32_t requester_link = 0;
    std::vector<bool> done; ///< per tile
    uint32_t completed = 0;
    uint32_t body_tiles = 1;          ///< tiles per steady-state body
    std::vector<uint64_t> body_done;  ///< completion time of each body, ps
    message_body data;                ///< a kernel load's token, with its bytes
    std::vector<uint64_t> tcm;        ///< per tile: reserved TCM bytes it holds in flight
  };
  struct feed {
    uint64_t command = 0;
    /// Its tiles, each planned when it is fed (a command of 4,096 tiles
    /// holds the plans of the tiles in flight, not all of them).
    std::shared_ptr<const tile_source> tiles; ///< shared with its II prediction
    uint32_t size = 0;
    /// A kernel's load, store or compute: the command, whose bytes, kernel
    /// name and data op its token carries (empty otherwise).
    message_body kernel_command;
    size_t next = 0;
    uint32_t body_tiles = 1;
    SimTime ii;                    ///< modulo feed: one body per II (0: FIFO)
    std::optional<SimTime> start;  ///< when its first token was released
    std::vector<uint64_t> deps;    ///< commands that must be done first
    bool held_by_deps = false;     ///< it waited for them
    bool composite = false;        ///< a composite command (not one stage)
    uint64_t engine_held_by = 0;   ///< an earlier command had its queue
    std::optional<tile_plan> peeked; ///< tile `next`, planned, not yet sent
  };
  /// A first-stage queue (a link and its input queue) and the command that
  /// has it: one feeding it (or waiting for its modulo release), or one
  /// whose tile is held there for lack of credit.
  struct engine_queue {
    uint32_t link = 0;
    queue_id queue = 0;
    uint64_t command = 0;
    bool operator==(const engine_queue& o) const { return link == o.link && queue == o.queue; }
  };
  struct blocked_queue {
    engine_queue at;
    service_tag pending; ///< the held tile, dispatched when it leaves
    SimTime since;
  };

  void on_command(sim_event& ev);
  void on_tile_done(sim_event& ev);
  void run_feeder();
  /// Feeds `f`'s tiles while it may; adds the queue it stops on (if it
  /// has started or is ready) to `busy`, so later commands do not take it.
  void feed_command(feed& f, std::vector<engine_queue>& busy);
  /// Records the II prediction of command `id`'s body as figures (a
  /// predicted II of 0 when the model cannot cover it).
  void record(uint64_t id, uint32_t body_tiles, const body_prediction& p);

  config cfg_;
  std::string pe_prefix_;
  /// Per unit role, the link to this PE's unit of it (none: no link), found
  /// once: a tile's first stage names its unit by role.
  std::array<std::optional<uint32_t>, unit_role_count> unit_links_;
  /// The modulo schedules of the commands' steady-state bodies: when the
  /// command arrives under the modulo feed, which needs the II; otherwise
  /// off the simulated path, collected at the end of the run (ADR-0019).
  body_predictor predictor_;
  SimTime feed_timer_at_ = SimTime::infinity(); ///< the earliest modulo release timer set
  std::map<uint64_t, command_state> commands_;
  /// The per-command table (arrival, start, what held it, II prediction).
  std::map<uint64_t, command_stat> rows_;
  uint64_t last_completed_ = 0; ///< the command completed last
  std::vector<bool> completed_; ///< by command id: done
  std::deque<feed> feeds_;      ///< the in-flight table: commands with tiles to feed, oldest first
  std::vector<blocked_queue> blocked_;
  uint64_t stall_ps_ = 0;       ///< summed over the blocked queues
  /// The scheduler's reserved TCM (ADR-0031): bytes held by the tiles in
  /// flight, their peak, and the time a tile waited for room.
  uint64_t tcm_in_flight_ = 0;
  uint64_t tcm_peak_ = 0;
  uint64_t tcm_stall_ps_ = 0;
  bool tcm_waiting_ = false; ///< a tile waits for room (this walk)
  std::optional<SimTime> tcm_wait_since_;
  uint64_t tiles_fed_ = 0;
  uint64_t commands_done_ = 0;
};

} // namespace kb
