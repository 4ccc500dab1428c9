#include "runtime/predict/periodic_body.hpp"

#include "runtime/predict/tile_schedule.hpp"
#include "runtime/schedule/dep_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kb {

namespace {

/// At most this many tiles after the run of the shape (the last K tile with
/// its epilogue): a longer tail is not periodic enough to gain.
constexpr uint32_t max_tail_tiles = 16;

int64_t cycles_of(const stage& s, const service_model& timing) {
  return static_cast<int64_t>(timing.clock().to_cycles_ceil(timing.service(s)).count());
}

/// What makes two tiles the same to the body problem: per stage its kind,
/// operand, math op and service in whole cycles (op_name and latency).
/// `a_cycles` are `a`'s services.
bool same_shape(const tile_plan& a, const std::vector<int64_t>& a_cycles, const tile_plan& b,
                const service_model& timing) {
  if (a.stages.size() != b.stages.size())
    return false;
  for (std::size_t i = 0; i < a.stages.size(); ++i) {
    const stage& x = a.stages[i];
    const stage& y = b.stages[i];
    if (x.type != y.type || x.params.operand != y.params.operand || x.params.op != y.params.op ||
        a_cycles[i] != cycles_of(y, timing))
      return false;
  }
  return true;
}

/// The body's first `side` tiles, then its tiles from `resume` on.
class sampled_tiles final : public tile_source {
public:
  sampled_tiles(const tile_source& body, uint32_t side, uint32_t resume, uint32_t end)
      : body_(body), side_(side), resume_(resume), end_(end) {}
  uint32_t size() const override { return side_ + (end_ - resume_); }
  tile_plan tile(uint32_t id) const override {
    return body_.tile(id < side_ ? id : resume_ + (id - side_));
  }

private:
  const tile_source& body_;
  uint32_t side_, resume_, end_;
};

constexpr int64_t never = std::numeric_limits<int64_t>::min() / 4; // (max,+) zero

int64_t plus(int64_t a, int64_t b) { return a == never || b == never ? never : a + b; }

/// A square (max,+) matrix: at(i, j) is the longest path from j to i.
struct maxplus {
  uint32_t n = 0;
  std::vector<int64_t> a;
  explicit maxplus(uint32_t size, int64_t fill = never)
      : n(size), a(std::size_t{size} * size, fill) {}
  int64_t& at(uint32_t i, uint32_t j) { return a[std::size_t{i} * n + j]; }
  int64_t at(uint32_t i, uint32_t j) const { return a[std::size_t{i} * n + j]; }
};

maxplus times(const maxplus& x, const maxplus& y) {
  maxplus out(x.n);
  for (uint32_t i = 0; i < x.n; ++i)
    for (uint32_t k = 0; k < x.n; ++k) {
      const int64_t xik = x.at(i, k);
      if (xik == never)
        continue;
      for (uint32_t j = 0; j < x.n; ++j)
        out.at(i, j) = std::max(out.at(i, j), plus(xik, y.at(k, j)));
    }
  return out;
}

maxplus power(maxplus base, uint64_t e) {
  maxplus out(base.n);
  for (uint32_t i = 0; i < base.n; ++i)
    out.at(i, i) = 0;
  for (; e; e >>= 1) {
    if (e & 1)
      out = times(out, base);
    if (e > 1)
      base = times(base, base);
  }
  return out;
}

/// Distance-0 edges entering each op, as compressed rows of edge indices.
struct in_edges {
  std::vector<uint32_t> start, edges;
  explicit in_edges(const sched::problem& p) : start(p.ops.size() + 1, 0) {
    for (const auto& e : p.edges)
      if (e.distance == 0)
        ++start[e.to + 1];
    for (std::size_t v = 0; v < p.ops.size(); ++v)
      start[v + 1] += start[v];
    edges.resize(start.back());
    std::vector<uint32_t> at(start.begin(), start.end() - 1);
    for (uint32_t i = 0; i < p.edges.size(); ++i)
      if (p.edges[i].distance == 0)
        edges[at[p.edges[i].to]++] = i;
  }
};

/// The longest distance-0 path to `v` from what `dist` already holds.
int64_t relax(const sched::problem& p, const in_edges& in, const std::vector<int64_t>& dist,
              uint32_t v) {
  int64_t best = dist[v];
  for (uint32_t i = in.start[v]; i < in.start[v + 1]; ++i) {
    const auto& e = p.edges[in.edges[i]];
    best = std::max(best, plus(dist[e.from], e.latency));
  }
  return best;
}

} // namespace

uint32_t periodic_sample_side(const service_model& timing) {
  // A credit edge runs from a tile to the one queue-depth + 1 tiles on; a
  // side of two more keeps the tile after the cut a plain periodic one.
  return std::max<uint32_t>(1, timing.queue_depth()) + 3;
}

std::optional<periodic_sample> sample_periodic_body(const tile_source& tiles,
                                                    uint32_t body_tiles,
                                                    const service_model& timing) {
  const uint32_t k = std::min(body_tiles, tiles.size());
  const uint32_t side = periodic_sample_side(timing);
  if (k < 2 * side + 1)
    return std::nullopt;
  const tile_plan first = tiles.tile(0);
  std::vector<int64_t> first_cycles;
  for (const auto& st : first.stages)
    first_cycles.push_back(cycles_of(st, timing));
  uint32_t run = 1; // the leading tiles of tile 0's shape
  uint64_t body_ops = first.stages.size();
  std::vector<uint32_t> tail_ops;
  for (uint32_t t = 1; t < k; ++t) {
    const tile_plan tile = tiles.tile(t);
    if (tile.m != first.m || tile.n != first.n)
      return std::nullopt; // not one output tile's K tiles
    body_ops += tile.stages.size();
    if (tail_ops.empty() && same_shape(first, first_cycles, tile, timing)) {
      ++run;
      continue;
    }
    if (tail_ops.size() == max_tail_tiles)
      return std::nullopt;
    tail_ops.push_back(static_cast<uint32_t>(tile.stages.size()));
  }
  if (run < 2 * side + 1)
    return std::nullopt;
  periodic_sample s;
  s.body_tiles = k;
  s.body_ops = body_ops;
  s.inserted = run - 2 * side;
  s.tile_ops = static_cast<uint32_t>(first.stages.size());
  s.problem = body_problem(sampled_tiles(tiles, side, run - side, k), k, timing);
  s.problem.source = "steady-state body (periodic sample)";
  // Each op's sample tile, and the assumptions of periodic_body.hpp.
  std::vector<uint32_t> tile_of;
  for (uint32_t t = 0; t < 2 * side; ++t)
    tile_of.insert(tile_of.end(), s.tile_ops, t);
  for (uint32_t t = 0; t < tail_ops.size(); ++t)
    tile_of.insert(tile_of.end(), tail_ops[t], 2 * side + t);
  if (tile_of.size() != s.problem.ops.size())
    return std::nullopt;
  for (const auto& op : s.problem.ops)
    if (op.latency < 1)
      return std::nullopt; // its hold (one cycle) would outlast its edges
  s.cut_op = side * s.tile_ops;
  uint32_t span = 0;
  for (const auto& e : s.problem.edges) {
    if (e.distance == 0) {
      if (e.from >= e.to)
        return std::nullopt;
      span = std::max(span, tile_of[e.to] - tile_of[e.from]);
    } else if (e.from < s.cut_op) {
      return std::nullopt; // a loop-carried edge must leave from after the cut
    }
  }
  if (span == 0 || span >= side)
    return std::nullopt;
  s.frontier_ops = span * s.tile_ops;
  return s;
}

sched::mii_bounds periodic_cycle_time(const periodic_sample& s) {
  const sched::problem& p = s.problem;
  const in_edges in(p);
  const uint32_t f = s.frontier_ops, ops = s.tile_ops;
  const uint32_t lead = s.cut_op - f; // the frontier's first op
  // One tile's transfer: from the frontier before it to the frontier after
  // it (which drops the oldest tile and adds this one). The sample's tile
  // after the cut has the edges of every tile between.
  maxplus step(f);
  std::vector<int64_t> dist(p.ops.size(), never);
  for (uint32_t c = 0; c < f; ++c) {
    std::fill(dist.begin() + lead, dist.begin() + s.cut_op + ops, never);
    dist[lead + c] = 0;
    for (uint32_t v = s.cut_op; v < s.cut_op + ops; ++v)
      dist[v] = relax(p, in, dist, v);
    for (uint32_t i = 0; i < f; ++i)
      step.at(i, c) = dist[lead + ops + i];
  }
  const maxplus across = power(step, s.inserted);
  // Longest paths through the whole body from each loop-carried edge's
  // target to each one's source: the sample's DAG, with the frontier carried
  // over the left-out tiles at the cut.
  std::vector<uint32_t> carried;
  for (uint32_t i = 0; i < p.edges.size(); ++i)
    if (p.edges[i].distance > 0)
      carried.push_back(i);
  sched::problem cycles; // one op per loop-carried edge; edges are the paths
  cycles.source = "steady-state body (cycles of a periodic body)";
  cycles.ops.resize(carried.size());
  for (uint32_t i = 0; i < carried.size(); ++i)
    cycles.ops[i].name = fmt::format("c{}", i);
  std::vector<int64_t> frontier(f);
  int64_t longest = 0;
  for (uint32_t i = 0; i < carried.size(); ++i) {
    const uint32_t entry = p.edges[carried[i]].to;
    std::fill(dist.begin(), dist.end(), never);
    dist[entry] = 0;
    for (uint32_t v = 0; v < p.ops.size(); ++v) {
      if (v == s.cut_op) {
        std::copy(dist.begin() + lead, dist.begin() + s.cut_op, frontier.begin());
        for (uint32_t r = 0; r < f; ++r) {
          int64_t best = never;
          for (uint32_t c = 0; c < f; ++c)
            best = std::max(best, plus(across.at(r, c), frontier[c]));
          dist[lead + r] = best;
        }
      }
      dist[v] = relax(p, in, dist, v);
    }
    for (uint32_t j = 0; j < carried.size(); ++j) {
      const auto& back = p.edges[carried[j]];
      const int64_t path = dist[back.from];
      if (path == never)
        continue;
      auto& e = cycles.edges.emplace_back();
      e.from = i;
      e.to = j;
      e.latency = path + back.latency;
      e.distance = back.distance;
      longest = std::max(longest, path + back.latency);
    }
  }
  // ResMII: the sample's holds and the left-out tiles' (those of the tile
  // after the cut, once each).
  std::vector<uint64_t> use(p.pools.size(), 0);
  for (uint32_t v = 0; v < p.ops.size(); ++v) {
    const uint64_t times = v >= s.cut_op && v < s.cut_op + ops ? s.inserted + 1 : 1;
    for (const auto& h : p.ops[v].holds)
      use[h.pool] += uint64_t{h.count} * h.cycles * times;
  }
  uint64_t res = 1;
  for (std::size_t i = 0; i < use.size(); ++i)
    res = std::max(res, (use[i] + p.pools[i].capacity - 1) / p.pools[i].capacity);
  constexpr uint64_t limit = std::numeric_limits<uint32_t>::max();
  if (res > limit || static_cast<uint64_t>(longest) > limit)
    throw std::domain_error(fmt::format(
      "the body of {} tiles is over 2^32 cycles long; its II is not predicted", s.body_tiles));
  // A cycle of k loop-carried edges has distance ≥ k and latency ≤ k ×
  // `longest`, so RecMII fits too.
  const sched::dep_graph g(cycles);
  sched::mii_bounds b = sched::compute_mii(cycles, g);
  b.res_mii = static_cast<uint32_t>(res);
  b.mii = std::max(b.res_mii, b.rec_mii.value_or(1));
  return b;
}

} // namespace kb
