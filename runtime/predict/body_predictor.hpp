#pragma once
// The II predictions of one PE's commands (ADR-0007, ADR-0019). A body of
// many tiles is predicted on the process's background runner from the moment
// its command arrives, so the prediction overlaps the simulation; a small one
// is predicted when the results are collected, on the caller's thread. Equal
// bodies (same ops, latencies and edges) are scheduled once. Results come out
// in the order the commands were started, whatever the threads, so the
// figures a run reports do not depend on timing. Equal bodies of different
// PEs share one schedule too (schedule_memo).

#include "runtime/plan/tile_source.hpp"
#include "runtime/predict/service_model.hpp"
#include "runtime/predict/tile_schedule.hpp"

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb {

struct body_prediction {
  std::shared_ptr<const tile_schedule> schedule; ///< null when the model cannot cover the body
  uint64_t mii_ps = 0;                           ///< MII at the PE clock (with a schedule)
  std::string unpredicted_because;               ///< why not (without one)
};

class body_predictor {
public:
  /// Bodies of at least this many tiles go to the background runner.
  static constexpr uint32_t background_tiles = 64;

  /// `make_model` builds the PE's service model the first time one is needed
  /// (it may throw std::domain_error: then no body is covered). With a
  /// `tcm_reserve` (the scheduler's reserved TCM, bytes), an II is never
  /// below the reserve's bound (tcm_bound.hpp, ADR-0031).
  explicit body_predictor(std::function<std::unique_ptr<service_model>()> make_model,
                          std::optional<uint64_t> tcm_reserve = std::nullopt);
  body_predictor(const body_predictor&) = delete;
  body_predictor& operator=(const body_predictor&) = delete;
  ~body_predictor(); ///< waits for its background predictions

  /// The prediction of the first `body_tiles` tiles of `tiles`, now.
  body_prediction predict_now(const tile_source& tiles, uint32_t body_tiles);
  /// Starts the prediction of command `id`'s body.
  void start(uint64_t id, std::shared_ptr<const tile_source> tiles, uint32_t body_tiles);
  /// Every prediction started since the last call, in start order; then
  /// drops the model and the schedules it kept (they are built again if
  /// another prediction comes).
  std::vector<std::pair<uint64_t, body_prediction>> collect();

private:
  /// What the predictions share with the background jobs (under `mutex`).
  struct shared {
    std::mutex mutex;
    std::function<std::unique_ptr<service_model>()> make_model;
    std::unique_ptr<service_model> model;
    std::optional<uint64_t> tcm_reserve;
    /// By body signature: the schedule, its II raised to the TCM's bound.
    std::map<std::string, std::shared_ptr<const tile_schedule>> by_body;
  };
  struct started {
    uint64_t id;
    std::shared_ptr<const tile_source> tiles; ///< set when predicted at collect
    uint32_t body_tiles;
    std::future<body_prediction> running; ///< valid when on the runner
  };
  static body_prediction predict(shared& s, const tile_source& tiles, uint32_t body_tiles);
  /// `units` (the units' schedule) with its II raised to the reserved
  /// TCM's bound where that is larger (tcm_bound.hpp).
  static std::shared_ptr<const tile_schedule>
  with_tcm_bound(shared& s, std::shared_ptr<const tile_schedule> units, const tile_source& tiles,
                 uint32_t body_tiles);

  std::shared_ptr<shared> shared_;
  std::vector<started> started_;
};

} // namespace kb
