#include "runtime/report/kernel_split.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace kb {

namespace {

/// What a command keeps busy, in the order the split gives precedence.
enum cls : uint8_t { computing, loads, stores, suspended, classes };

cls class_of(const command_stat& c) {
  switch (static_cast<command_call>(c.call)) {
    case command_call::load: return loads;
    case command_call::store: return stores;
    default: return computing;
  }
}

struct edge {
  uint64_t at;
  int8_t step; ///< +1 opens, -1 closes
  cls what;
};

} // namespace

kernel_split kernel_split_of(const pe_commands& p) {
  kernel_split s;
  const kernel_time t = kernel_time_of(p);
  if (!t.ran)
    return s;
  const uint64_t lo = t.start_ps, hi = std::max(t.start_ps, t.end_ps);
  s.span_ps = hi - lo;
  std::vector<edge> edges;
  edges.reserve(2 * p.rows.size() + 2);
  const auto add = [&](uint64_t from, uint64_t to, cls what) {
    from = std::clamp(from, lo, hi);
    to = std::clamp(to, lo, hi);
    if (from < to) {
      edges.push_back({from, +1, what});
      edges.push_back({to, -1, what});
    }
  };
  for (const command_stat& c : p.rows) {
    if (!c.done)
      continue;
    add(c.start_ps, c.done_ps, class_of(c)); // its pipeline time: start -> done notice
    if (c.resumed_kernel)
      add(c.blocked_from_ps, c.done_ps, suspended);
  }
  std::sort(edges.begin(), edges.end(),
            [](const edge& a, const edge& b) { return a.at < b.at; });
  std::array<int64_t, classes> open{};
  std::array<uint64_t*, suspended> charge{&s.computing_ps, &s.loads_ps, &s.stores_ps};
  uint64_t at = lo;
  for (const edge& e : edges) {
    if (e.at > at && open[suspended] > 0) {
      uint64_t* to = &s.transit_ps;
      for (size_t c = 0; c < suspended; ++c)
        if (open[c] > 0) {
          to = charge[c];
          break;
        }
      *to += e.at - at;
    }
    at = e.at;
    open[e.what] += e.step;
  }
  const uint64_t charged = s.computing_ps + s.loads_ps + s.stores_ps + s.transit_ps;
  s.running_ps = s.span_ps > charged ? s.span_ps - charged : 0;
  return s;
}

} // namespace kb
