#include "runtime/schedule/analysis.hpp"

#include <algorithm>
#include <numeric>

namespace kb::sched {

std::string_view to_string(strategy s) {
  switch (s) {
    case strategy::automatic: return "auto";
    case strategy::serial: return "serial";
    case strategy::cost: return "cost";
  }
  return "?";
}

std::optional<strategy> parse_strategy(std::string_view text) {
  if (text == "auto")
    return strategy::automatic;
  if (text == "serial")
    return strategy::serial;
  if (text == "cost")
    return strategy::cost;
  return std::nullopt;
}

std::string_view to_string(diagnostic::level l) {
  switch (l) {
    case diagnostic::level::note: return "note";
    case diagnostic::level::warning: return "warning";
    case diagnostic::level::error: return "error";
  }
  return "?";
}

std::vector<uint32_t> schedule_analysis::emitted_order() const {
  std::vector<uint32_t> out(seats.size());
  std::iota(out.begin(), out.end(), 0u);
  std::stable_sort(out.begin(), out.end(),
                   [this](uint32_t a, uint32_t b) { return seats[a].order < seats[b].order; });
  return out;
}

void schedule_analysis::note(diagnostic::level l, std::string message) {
  diagnostics.push_back({l, std::move(message)});
}

} // namespace kb::sched
