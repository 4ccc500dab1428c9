#pragma once
// The recorder behind --json (docs/results-schema.md, `stages`): sums each
// unit's engine_start/engine_complete pairs into one stage_tally per
// command and stage type as the run goes (tiles served, busy time), instead
// of keeping every record to pair them at the end. Wraps another recorder
// (the trace's, the stream's, the heartbeat's; may be null), which gets
// every call.

#include "runtime/engine/recorder.hpp"
#include "runtime/trace/stage_table.hpp"

#include <memory>
#include <vector>

namespace kb {

class stage_tally_recorder final : public recorder {
public:
  explicit stage_tally_recorder(std::shared_ptr<recorder> inner) : inner_(std::move(inner)) {}

  void record(trace_kind kind, SimTime t, node_id node, const service_tag& tag) override;
  void message(const message_note& m, const service_tag& tag) override;
  void service(SimTime t, node_id node, SimTime begin, SimTime end,
               const service_tag& tag) override;
  bool wants_hops() const override { return inner_ && inner_->wants_hops(); }
  void events(uint64_t n, SimTime now) override;
  std::vector<char> take_records() override;
  /// A stage_table, sorted by command, then stage type (null: no stage).
  std::shared_ptr<const summary_table> take_table() override;

private:
  struct open_stage {
    bool open = false;
    SimTime start;
    uint16_t what = 0;
    uint64_t command = 0;
  };
  /// The tally of (command, type): the last one used, else searched from
  /// the newest (a unit's commands come in order; few are open at once),
  /// else a new one. A hash map per node cost 2-3% of a 4,096-PE run.
  stage_tally& tally_of(uint64_t command, uint8_t type);

  std::shared_ptr<recorder> inner_;
  std::vector<open_stage> lanes_;   ///< by lane: the stage it serves
  std::vector<stage_tally> tallies_; ///< in the order first met
  size_t last_ = 0;                  ///< the tally the last stage went to
};

} // namespace kb
