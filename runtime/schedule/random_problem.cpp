#include "runtime/schedule/random_problem.hpp"

#include "runtime/schedule/detail/splitmix.hpp"

#include <fmt/format.h>

namespace kb::sched {

namespace {

class rng {
public:
  explicit rng(uint64_t seed) : x_(seed) {}
  uint64_t next() { return detail::splitmix64(x_); }
  /// Uniform in [lo, hi].
  uint32_t in(uint32_t lo, uint32_t hi) {
    return lo + static_cast<uint32_t>(next() % (uint64_t{hi} - lo + 1));
  }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }

private:
  uint64_t x_;
};

} // namespace

problem random_problem(uint64_t seed, const random_problem_options& o) {
  rng r(seed);
  problem p;
  p.source = fmt::format("random#{}", seed);
  const uint32_t pools = r.in(1, o.max_pools);
  for (uint32_t i = 0; i < pools; ++i)
    p.pools.push_back({fmt::format("r{}", i), r.in(1, o.max_capacity)});
  const uint32_t n = r.in(o.min_ops, o.max_ops);
  for (uint32_t v = 0; v < n; ++v) {
    op_spec op;
    op.name = fmt::format("op{}", v);
    op.latency = r.in(0, o.max_latency);
    if (!r.chance(0.2)) { // most ops bear a resource, some none
      const uint32_t len = r.in(1, o.max_reservation);
      op.reservation.resize(len);
      for (uint32_t c = 0; c < len; ++c) {
        const uint32_t pool = r.in(0, pools - 1);
        if (c > 0 && r.chance(0.25))
          continue; // a gap cycle
        op.reservation[c].push_back({pool, r.chance(0.8) ? 1u : r.in(1, p.pools[pool].capacity)});
      }
    }
    if (o.constraints) {
      if (r.chance(0.15))
        op.max_depth = r.in(0, 3);
      if (r.chance(0.2)) {
        op.gid = r.in(0, 3);
        if (r.chance(0.5))
          op.leader_gid = r.in(0, 3);
      }
    }
    p.ops.push_back(std::move(op));
  }
  auto add_edge = [&](uint32_t from, uint32_t to, uint32_t distance) {
    edge_spec e;
    e.from = from;
    e.to = to;
    e.distance = distance;
    e.latency = r.chance(0.2) ? r.in(0, o.max_latency) : p.ops[from].latency;
    p.edges.push_back(e);
  };
  for (uint32_t v = 1; v < n; ++v) { // forward edges: one or two producers
    const uint32_t fan_in = r.in(0, 2);
    for (uint32_t k = 0; k < fan_in; ++k)
      add_edge(r.in(v > 4 ? v - 4 : 0, v - 1), v, r.chance(0.1) ? r.in(1, 2) : 0);
  }
  for (uint32_t v = 0; v < n; ++v) { // loop-carried back edges
    if (r.chance(o.back_edge_rate))
      add_edge(v, r.in(0, v), r.in(1, 3));
  }
  return p;
}

} // namespace kb::sched
