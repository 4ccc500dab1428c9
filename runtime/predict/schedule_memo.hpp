#pragma once
// The schedules of equal bodies, generated once per process (issue 31).
//
// Every PE of a machine predicts the II of each of its commands' bodies
// (body_predictor). The PEs of a kernel run or a driver run mostly have
// equal bodies, and generating a modulo schedule is most of a prediction:
// on 16,384 PEs of a small kernel, 15% of the whole run, at collection.
// A schedule is a function of its problem, its tile count and the clock
// alone, so one generated for one PE is every other's with the same key
// (`append_key`, every field of the problem). The memo keeps at most
// `capacity` schedules and starts again when full: results never depend on
// what it holds.

#include "runtime/predict/tile_schedule.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace kb {

/// Schedules kept at once (they are small; the bodies of a run are few).
inline constexpr size_t schedule_memo_capacity = 256;

/// The schedule for `key`: a kept one, or `make()`'s, kept. `make` runs
/// without the memo's lock (two threads may make the same one; the first
/// kept is returned to both, and both are equal). An exception from `make`
/// passes through and nothing is kept.
std::shared_ptr<const tile_schedule> memo_schedule(const std::string& key,
                                                   const std::function<tile_schedule()>& make);

/// Schedules kept now, and how many `memo_schedule` calls made one (tests).
size_t schedule_memo_size();
size_t schedule_memo_made();

} // namespace kb
