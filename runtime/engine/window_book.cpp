#include "runtime/engine/window_book.hpp"

#include <algorithm>

namespace kb {

window_book::window_book(size_t nodes)
  : in_live_(nodes, 0), next_(nodes, SimTime::infinity()),
    held_min_(nodes, SimTime::infinity()), held_(nodes) {}

void window_book::make_live(node_id id) {
  if (!in_live_[id]) {
    in_live_[id] = 1;
    live_.push_back(id);
  }
}

void window_book::reported(node_id id, SimTime next) {
  next_[id] = next;
  if (!next.is_infinite())
    make_live(id);
}

void window_book::hold(sim_event e) {
  const node_id id = e.dst;
  held_min_[id] = std::min(held_min_[id], e.t);
  make_live(id);
  held_[id].push_back(std::move(e));
}

SimTime window_book::local_min() const {
  SimTime t = SimTime::infinity();
  for (node_id id : live_)
    t = std::min({t, next_[id], held_min_[id]});
  return t;
}

std::span<const node_id> window_book::wake(SimTime w) {
  woken_.clear();
  size_t keep = 0;
  for (size_t k = 0; k < live_.size(); ++k) {
    const node_id id = live_[k];
    if (next_[id] < w || held_min_[id] < w) {
      woken_.push_back(id);
      held_min_[id] = SimTime::infinity();
    } else if (next_[id].is_infinite() && held_min_[id].is_infinite()) {
      in_live_[id] = 0; // idle: drop from the live list
      continue;
    }
    live_[keep++] = id;
  }
  live_.resize(keep);
  return woken_;
}

std::vector<sim_event> window_book::take(node_id id, std::vector<sim_event> spare) {
  std::vector<sim_event> events = std::move(held_[id]);
  held_[id] = std::move(spare);
  return events;
}

} // namespace kb
