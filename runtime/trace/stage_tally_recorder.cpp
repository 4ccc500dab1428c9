#include "runtime/trace/stage_tally_recorder.hpp"

#include <algorithm>
#include <stdexcept>

namespace kb {

void stage_tally_recorder::record(trace_kind kind, SimTime t, node_id node,
                                  const service_tag& tag) {
  if (kind == trace_kind::engine_start) {
    if (tag.lane >= lanes_.size())
      lanes_.resize(size_t{tag.lane} + 1);
    lanes_[tag.lane] = {true, t, tag.what, tag.context};
  } else if (kind == trace_kind::engine_complete) {
    if (tag.lane >= lanes_.size() || !lanes_[tag.lane].open)
      throw std::logic_error("engine_complete without engine_start");
    open_stage& s = lanes_[tag.lane];
    s.open = false;
    stage_tally& x = tally_of(s.command, static_cast<uint8_t>(s.what));
    ++x.count;
    x.busy_ps += (t - s.start).ps();
  }
  if (inner_)
    inner_->record(kind, t, node, tag);
}

stage_tally& stage_tally_recorder::tally_of(uint64_t command, uint8_t type) {
  auto is = [&](const stage_tally& x) { return x.command == command && x.type == type; };
  if (last_ < tallies_.size() && is(tallies_[last_]))
    return tallies_[last_];
  for (size_t i = tallies_.size(); i-- > 0;)
    if (is(tallies_[i]))
      return tallies_[last_ = i];
  stage_tally& x = tallies_.emplace_back();
  x.command = command;
  x.type = type;
  last_ = tallies_.size() - 1;
  return x;
}

void stage_tally_recorder::message(const message_note& m, const service_tag& tag) {
  if (inner_)
    inner_->message(m, tag);
}

void stage_tally_recorder::service(SimTime t, node_id node, SimTime begin, SimTime end,
                 const service_tag& tag) {
  if (inner_)
    inner_->service(t, node, begin, end, tag);
}

void stage_tally_recorder::events(uint64_t n, SimTime now) {
  if (inner_)
    inner_->events(n, now);
}

std::vector<char> stage_tally_recorder::take_records() {
  return inner_ ? inner_->take_records() : std::vector<char>{};
}

std::shared_ptr<const summary_table> stage_tally_recorder::take_table() {
  if (tallies_.empty())
    return nullptr;
  std::vector<stage_tally> out = std::move(tallies_);
  tallies_.clear();
  last_ = 0;
  std::sort(out.begin(), out.end(), [](const stage_tally& a, const stage_tally& b) {
    return a.command != b.command ? a.command < b.command : a.type < b.type;
  });
  return std::make_shared<stage_table>(std::move(out));
}

} // namespace kb
