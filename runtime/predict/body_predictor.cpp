#include "runtime/predict/body_predictor.hpp"

#include "runtime/predict/background_jobs.hpp"
#include "runtime/predict/periodic_body.hpp"
#include "runtime/predict/schedule_memo.hpp"
#include "runtime/predict/tcm_bound.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

namespace {

template <class T>
void append_bytes(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

/// What a body's schedule is a function of, as bytes (schedule_memo.hpp):
/// how it is scheduled (op by op, or periodic by its sample), the whole
/// problem, the tiles and the clock. Equal keys, equal schedules.
std::string key_of(char how, const sched::problem& problem, uint32_t body_tiles,
                   const sim_clock& clock) {
  std::string out;
  out.reserve(64 + problem.ops.size() * 48 + problem.edges.size() * 32);
  out += how;
  sched::append_key(out, problem);
  append_bytes(out, body_tiles);
  append_bytes(out, clock.period_ps());
  return out;
}

} // namespace

body_predictor::body_predictor(std::function<std::unique_ptr<service_model>()> make_model,
                               std::optional<uint64_t> tcm_reserve)
    : shared_(std::make_shared<shared>()) {
  shared_->make_model = std::move(make_model);
  shared_->tcm_reserve = tcm_reserve;
}

body_predictor::~body_predictor() {
  for (auto& s : started_)
    if (s.running.valid())
      s.running.wait(); // the job reads the machine the model refers to
}

std::shared_ptr<const tile_schedule>
body_predictor::with_tcm_bound(shared& s, std::shared_ptr<const tile_schedule> units,
                               const tile_source& tiles, uint32_t body_tiles) {
  // The units' II, unless the reserved TCM allows fewer bodies in flight
  // (ADR-0031). Computed with the schedule, once per distinct body of the
  // PE (the units' schedule may be another PE's: schedule_memo).
  if (s.tcm_reserve) {
    const uint64_t bound = tcm_bound_cycles(tiles, body_tiles, *s.model, *s.tcm_reserve);
    if (bound > UINT32_MAX)
      throw std::domain_error(fmt::format(
        "the reserved TCM's bound on the II, {} cycles, is over 2^32 cycles", bound));
    if (bound > units->ii_cycles) {
      tile_schedule raised = *units;
      raised.ii_cycles = static_cast<uint32_t>(bound);
      raised.ii = s.model->clock().to_time(Cycles{bound});
      raised.tcm_bound = true;
      return std::make_shared<const tile_schedule>(std::move(raised));
    }
  }
  return units;
}

body_prediction body_predictor::predict(shared& s, const tile_source& tiles,
                                        uint32_t body_tiles) {
  std::lock_guard lock(s.mutex);
  body_prediction out;
  try {
    if (!s.model)
      s.model = s.make_model();
    // A deep body by its periodic sample (ADR-0022), any other op by op.
    const sim_clock& clock = s.model->clock();
    if (auto sample = sample_periodic_body(tiles, body_tiles, *s.model)) {
      std::string key = key_of('p', sample->problem, sample->body_tiles, clock);
      append_bytes(key, sample->body_ops);
      append_bytes(key, sample->inserted);
      append_bytes(key, sample->tile_ops);
      append_bytes(key, sample->cut_op);
      append_bytes(key, sample->frontier_ops);
      auto& cached = s.by_body[key];
      if (!cached)
        cached = with_tcm_bound(
          s, memo_schedule(key, [&] { return schedule_periodic_body(*sample, clock); }), tiles,
          body_tiles);
      out.schedule = cached;
    } else {
      auto body = body_problem(tiles, body_tiles, *s.model);
      std::string key = key_of('b', body, body_tiles, clock);
      auto& cached = s.by_body[key];
      if (!cached)
        cached = with_tcm_bound(s, memo_schedule(key, [&] {
                                  return schedule_body(std::move(body), body_tiles, clock);
                                }),
                                tiles, body_tiles);
      out.schedule = cached;
    }
    out.mii_ps = *out.schedule->bounds.mii * s.model->clock().period_ps();
  } catch (const std::domain_error& e) {
    out.unpredicted_because = e.what(); // not covered by the unloaded model
  }
  return out;
}

body_prediction body_predictor::predict_now(const tile_source& tiles, uint32_t body_tiles) {
  return predict(*shared_, tiles, body_tiles);
}

void body_predictor::start(uint64_t id, std::shared_ptr<const tile_source> tiles,
                           uint32_t body_tiles) {
  started s{id, nullptr, body_tiles, {}};
  if (body_tiles >= background_tiles)
    s.running = background_jobs::shared().submit<body_prediction>(
      [state = shared_, tiles = std::move(tiles), body_tiles] {
        return predict(*state, *tiles, body_tiles);
      });
  else
    s.tiles = std::move(tiles);
  started_.push_back(std::move(s));
}

std::vector<std::pair<uint64_t, body_prediction>> body_predictor::collect() {
  std::vector<std::pair<uint64_t, body_prediction>> out;
  out.reserve(started_.size());
  for (auto& s : started_)
    out.emplace_back(s.id, s.running.valid() ? s.running.get()
                                             : predict(*shared_, *s.tiles, s.body_tiles));
  started_.clear();
  // Nothing is running now. The model and the schedules are dropped: a PE
  // collects at the end of its run, and a machine of many PEs would
  // otherwise hold them all until teardown (issue 31: about 10 KB per PE,
  // at the summary's peak). A later prediction builds the model again.
  std::lock_guard lock(shared_->mutex);
  shared_->model.reset();
  shared_->by_body.clear();
  return out;
}

} // namespace kb
