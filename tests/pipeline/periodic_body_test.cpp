// The II of a deep body from its periodic sample (ADR-0022) against the
// body scheduled op by op: the same ResMII, RecMII, MII and II on every
// shape, at every queue depth, read-bound and GEMM-bound alike.

#include "tests/pipeline/pipeline_support.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/plan/gemm_plan.hpp"
#include "runtime/predict/periodic_body.hpp"
#include "runtime/predict/tile_schedule.hpp"
#include "runtime/schedule/dep_graph.hpp"
#include "runtime/schedule/mii.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace kb {
namespace {

topology_spec topology_with_depth(uint32_t depth) {
  auto topo = load_topology(test::config_file("topology.yaml"),
                            builtin_kinds().catalog());
  topo.pe_queue_depth = depth;
  return topo;
}

struct shape {
  uint32_t m, k, n, tile;
  dtype type;
};

gemm_plan_args args_of(const shape& s) {
  auto g = test::gemm(s.m, s.k, s.n, s.tile);
  g.in_dtype = s.type;
  return g;
}

TEST(PeriodicBody, ItsCycleTimeIsTheIiOfTheBodyScheduledOpByOp) {
  // GEMM-bound (128³ f16/f32, 64³), read-bound (32³: two 116 + B/256 ns
  // reads ahead of a short GEMM), i8; K tiles from just past the sample's
  // two sides to well beyond; queue depths 1 (credits bind), 2, 4 and 8.
  const shape shapes[] = {
    {128, 128 * 15, 128, 128, dtype::f16}, {128, 128 * 16, 128, 128, dtype::f32},
    {128, 128 * 41, 128, 128, dtype::f16}, {256, 64 * 37, 128, 64, dtype::f16},
    {64, 32 * 23, 64, 32, dtype::f16},     {64, 32 * 64, 64, 32, dtype::i8},
    {32, 32 * 100, 32, 32, dtype::f32},    {128, 128 * 30 + 64, 128, 128, dtype::f16},
  };
  int periodic = 0;
  for (const uint32_t depth : {1u, 2u, 4u, 8u}) {
    const auto topo = topology_with_depth(depth);
    const service_model timing(topo, builtin_kinds(), "sip0.cube0.pe0");
    for (const auto& s : shapes) {
      const auto tiles = gemm_tiles(args_of(s));
      const uint32_t body = tiles->body_tiles();
      const std::string what = fmt::format("{}x{}x{} tile {} {} depth {}", s.m, s.k, s.n,
                                           s.tile, to_string(s.type), depth);
      const auto sample = sample_periodic_body(*tiles, body, timing);
      if (!sample) {
        // Only a body too short for two sides and a tile between.
        EXPECT_LT(body, 2 * periodic_sample_side(timing) + 2) << what;
        continue;
      }
      ++periodic;
      const tile_schedule fast = schedule_periodic_body(*sample, timing.clock());
      const tile_schedule full =
        schedule_body(body_problem(*tiles, body, timing), body, timing.clock());
      EXPECT_FALSE(fast.scheduled) << what;
      ASSERT_TRUE(full.scheduled) << what;
      EXPECT_EQ(fast.body_ops, full.body_ops) << what;
      EXPECT_EQ(fast.bounds.res_mii, full.bounds.res_mii) << what;
      EXPECT_EQ(fast.bounds.rec_mii, full.bounds.rec_mii) << what;
      EXPECT_EQ(fast.bounds.mii, full.bounds.mii) << what;
      EXPECT_EQ(fast.ii_cycles, full.ii_cycles) << what;
      EXPECT_EQ(fast.ii, full.ii) << what;
      EXPECT_LT(sample->problem.ops.size(), 2 * (2 * periodic_sample_side(timing) + 1) * 8)
        << what;
    }
  }
  EXPECT_GE(periodic, 28); // the comparison ran, not only the fallback
}

TEST(PeriodicBody, ABodyShorterThanTwoSidesAndATileIsScheduledOpByOp) {
  const auto topo = topology_with_depth(4);
  const service_model timing(topo, builtin_kinds(), "sip0.cube0.pe0");
  const uint32_t side = periodic_sample_side(timing);
  EXPECT_EQ(side, 7u); // queue depth 4 + 3
  // 2·7 + 1 tiles of the shape and the last tile with its epilogue: the
  // first body that samples; one tile fewer does not.
  const auto just = gemm_tiles(test::gemm(128, 128 * 16, 128));
  const auto sample = sample_periodic_body(*just, just->body_tiles(), timing);
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->inserted, 1u);
  EXPECT_EQ(sample->tile_ops, 4u); // DMA_READ A, DMA_READ B, FETCH, GEMM
  EXPECT_EQ(sample->body_tiles, 16u);
  EXPECT_EQ(sample->body_ops, 16u * 4 + 2); // and STORE, DMA_WRITE in the last
  EXPECT_EQ(sample->cut_op, 7u * 4);
  EXPECT_EQ(sample->frontier_ops, 5u * 4); // credits reach queue depth + 1 tiles on
  const auto short_body = gemm_tiles(test::gemm(128, 128 * 15, 128));
  EXPECT_FALSE(sample_periodic_body(*short_body, short_body->body_tiles(), timing));
}

TEST(PeriodicBody, AMillionTileBodyCostsItsSampleAndOneWalkOverItsTiles) {
  // 128 × 2^27 × 128 f16: one body of 1,048,576 K tiles (over 4 M ops). The
  // GEMM lane bounds it: 2,112 cycles a tile, 2,214,592,512 in all — within
  // 32 bits. A body twice as deep is over 2^32 cycles and says so.
  const auto topo = topology_with_depth(4);
  const service_model timing(topo, builtin_kinds(), "sip0.cube0.pe0");
  const auto deep = gemm_tiles(test::gemm(128, 128u << 20, 128));
  const auto sample = sample_periodic_body(*deep, deep->body_tiles(), timing);
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->inserted, (1u << 20) - 1 - 14);
  const auto ts = schedule_periodic_body(*sample, timing.clock());
  EXPECT_EQ(ts.ii_cycles, 2112u << 20);
  EXPECT_EQ(ts.bounds.res_mii, 2112u << 20);
  EXPECT_EQ(ts.body_ops, (uint64_t{4} << 20) + 2);
  const auto deeper = gemm_tiles(test::gemm(128, 128u << 21, 128));
  const auto too_long = sample_periodic_body(*deeper, deeper->body_tiles(), timing);
  ASSERT_TRUE(too_long);
  try {
    (void)periodic_cycle_time(*too_long);
    FAIL() << "expected the 2^32-cycle limit";
  } catch (const std::domain_error& e) {
    EXPECT_STREQ(e.what(),
                 "the body of 2097152 tiles is over 2^32 cycles long; its II is not predicted");
  }
}

/// A body of `tiles` tiles of two one-cycle ops on lanes of their own, a
/// and b, FIFO-chained per lane; a_k → b_k takes 5 cycles, b_k → a_{k+1} 5,
/// and a_k → a_{k+2} 25: a recurrence of 12.5 cycles a tile, far above the
/// lanes' one. The last tile's b feeds the next body's first a.
sched::problem chain_body(uint32_t tiles) {
  sched::problem p;
  p.pools = {{"a", 1}, {"b", 1}};
  for (uint32_t k = 0; k < tiles; ++k)
    for (uint32_t lane = 0; lane < 2; ++lane) {
      auto& op = p.ops.emplace_back();
      op.name = fmt::format("k{}.{}", k, lane ? 'b' : 'a');
      op.latency = 1;
      op.holds = {{lane, 1, 1}};
    }
  auto edge = [&](uint32_t from, uint32_t to, int64_t latency, uint32_t distance) {
    auto& e = p.edges.emplace_back();
    e.from = from;
    e.to = to;
    e.latency = latency;
    e.distance = distance;
  };
  const uint32_t last = tiles - 1;
  for (uint32_t k = 0; k < tiles; ++k) {
    edge(2 * k, 2 * k + 1, 5, 0);
    for (uint32_t lane = 0; lane < 2; ++lane) // FIFO per lane, last before next body's first
      edge(2 * k + lane, k < last ? 2 * (k + 1) + lane : lane, 1, k < last ? 0 : 1);
    if (k < last)
      edge(2 * k + 1, 2 * (k + 1), 5, 0);
    if (k + 2 < tiles)
      edge(2 * k, 2 * (k + 2), 25, 0);
  }
  edge(2 * last + 1, 0, 5, 1);
  return p;
}

TEST(PeriodicBody, TheSampleStandsForTheTilesLeftOutOnARecurrenceAboveTheLanes) {
  // Sides of 4 tiles; edges reach 2 tiles on. The cycle time of the whole
  // body, computed op by op, against the sample's with the tiles between
  // carried by the (max,+) power — for bodies of 9 to 1,000 tiles.
  constexpr uint32_t side = 4;
  for (const uint32_t tiles : {9u, 10u, 11u, 40u, 333u, 1000u}) {
    periodic_sample s;
    s.problem = chain_body(2 * side);
    s.body_tiles = tiles;
    s.body_ops = 2 * tiles;
    s.inserted = tiles - 2 * side;
    s.tile_ops = 2;
    s.cut_op = side * 2;
    s.frontier_ops = 2 * 2;
    const auto whole = chain_body(tiles);
    const auto want = sched::compute_mii(whole, sched::dep_graph(whole));
    const auto got = periodic_cycle_time(s);
    EXPECT_EQ(got.res_mii, tiles) << tiles;
    EXPECT_EQ(got.res_mii, want.res_mii) << tiles;
    EXPECT_EQ(got.rec_mii, want.rec_mii) << tiles;
    EXPECT_EQ(got.mii, want.mii) << tiles;
    // Every other tile 25 cycles along a, and the wrap b → a: about 12.5 a tile.
    EXPECT_GE(*got.rec_mii, 12 * tiles) << tiles;
  }
}

} // namespace
} // namespace kb
