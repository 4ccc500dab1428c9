// The II predictions of a PE's commands off the simulated path (ADR-0019):
// a large body on the background runner, a small one when collected; the
// same schedule either way, results in start order, equal bodies once.

#include "tests/pipeline/pipeline_support.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/plan/gemm_plan.hpp"
#include "runtime/predict/background_jobs.hpp"
#include "runtime/predict/body_predictor.hpp"
#include "runtime/predict/schedule_memo.hpp"
#include "runtime/schedule/problem.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb {
namespace {

const topology_spec& default_topology() {
  static const topology_spec topo = load_topology(
    test::config_file("topology.yaml"), builtin_kinds().catalog());
  return topo;
}

body_predictor pe0_predictor(int* models_built = nullptr) {
  return body_predictor([models_built] {
    if (models_built)
      ++*models_built;
    return std::make_unique<service_model>(default_topology(), builtin_kinds(), "sip0.cube0.pe0");
  });
}

TEST(TileSource, AGemmSaysItsBodyWithoutWalkingTheTiles) {
  // M→N→K order: the first output tile's K tiles come first. The GEMM source
  // answers from its K tile count; the walk over the tiles must agree.
  for (const auto& [m, k, n] : {std::tuple{128u, 1024u, 128u}, std::tuple{256u, 384u, 256u},
                                std::tuple{128u, 128u, 256u}}) {
    const auto tiles = gemm_tiles(test::gemm(m, k, n));
    EXPECT_EQ(tiles->body_tiles(), k / 128) << m << "x" << k << "x" << n;
    EXPECT_EQ(tiles->body_tiles(), tiles->tile_source::body_tiles()) << m << "x" << k << "x" << n;
  }
}

TEST(BodyPredictor, ALargeBodyOnTheRunnerGetsTheScheduleOfTheSameBodyNow) {
  // 128×16384×128: one output tile of 128 K tiles, at or above the runner's
  // threshold; 128×2048×128 (16 K tiles) is predicted when collected.
  const auto deep = std::shared_ptr<const tile_source>(gemm_tiles(test::gemm(128, 16384, 128)));
  const auto shallow = std::shared_ptr<const tile_source>(gemm_tiles(test::gemm(128, 2048, 128)));
  ASSERT_GE(deep->body_tiles(), body_predictor::background_tiles);
  ASSERT_LT(shallow->body_tiles(), body_predictor::background_tiles);
  int built = 0;
  auto later = pe0_predictor(&built);
  later.start(7, deep, deep->body_tiles());
  later.start(3, shallow, shallow->body_tiles());
  later.start(9, deep, deep->body_tiles()); // the same body again
  const auto got = later.collect();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].first, 7u); // start order, not id order
  EXPECT_EQ(got[1].first, 3u);
  EXPECT_EQ(got[2].first, 9u);
  EXPECT_EQ(built, 1);                                   // one model for all
  EXPECT_EQ(got[0].second.schedule, got[2].second.schedule); // scheduled once
  EXPECT_TRUE(later.collect().empty());

  auto now = pe0_predictor();
  const auto deep_now = now.predict_now(*deep, deep->body_tiles());
  const auto shallow_now = now.predict_now(*shallow, shallow->body_tiles());
  for (const auto& [a, b] : {std::pair{&got[0].second, &deep_now},
                             std::pair{&got[1].second, &shallow_now}}) {
    ASSERT_TRUE(a->schedule && b->schedule);
    EXPECT_EQ(a->schedule->ii, b->schedule->ii);
    EXPECT_EQ(a->mii_ps, b->mii_ps);
    EXPECT_EQ(a->schedule->body_tiles, b->schedule->body_tiles);
    EXPECT_EQ(a->schedule->body_ops, b->schedule->body_ops);
    ASSERT_EQ(a->schedule->scheduled.has_value(), b->schedule->scheduled.has_value());
    if (!a->schedule->scheduled)
      continue;
    const auto& sa = a->schedule->scheduled->analysis.seats;
    const auto& sb = b->schedule->scheduled->analysis.seats;
    ASSERT_EQ(sa.size(), sb.size());
    for (std::size_t v = 0; v < sa.size(); ++v)
      EXPECT_EQ(sa[v].cycle, sb[v].cycle) << v;
  }
  // 128 K tiles of one output tile, each 244+244 ns of reads ahead of a
  // 2,112 ns GEMM (f16, DESIGN §4): the GEMM lane bounds the body.
  EXPECT_EQ(deep_now.schedule->ii.ps(), 128u * 2112'000u);
}

TEST(BodyPredictor, AMachineTheModelCannotCoverGivesTheReasonOnEveryPath) {
  const auto deep = std::shared_ptr<const tile_source>(gemm_tiles(test::gemm(128, 16384, 128)));
  const auto shallow = std::shared_ptr<const tile_source>(gemm_tiles(test::gemm(128, 256, 128)));
  body_predictor p([]() -> std::unique_ptr<service_model> {
    throw std::domain_error("no topology to model");
  });
  p.start(1, deep, deep->body_tiles());
  p.start(2, shallow, shallow->body_tiles());
  for (const auto& [id, got] : p.collect()) {
    EXPECT_FALSE(got.schedule) << id;
    EXPECT_EQ(got.unpredicted_because, "no topology to model") << id;
  }
}

TEST(BodyPredictor, EqualBodiesOfTwoPesShareOneScheduleMadeOnce) {
  // Two PEs of the default machine: the same GEMM body has the same
  // problem, so the second PE's prediction is the first's schedule
  // (schedule_memo), not a second modulo scheduling.
  const auto tiles = gemm_tiles(test::gemm(128, 2048, 256)); // a fresh body for this test
  auto pe0 = pe0_predictor();
  auto pe1 = body_predictor([] {
    return std::make_unique<service_model>(default_topology(), builtin_kinds(), "sip0.cube0.pe1");
  });
  const size_t made = schedule_memo_made();
  const auto a = pe0.predict_now(*tiles, tiles->body_tiles());
  const size_t after_first = schedule_memo_made();
  const auto b = pe1.predict_now(*tiles, tiles->body_tiles());
  ASSERT_TRUE(a.schedule && b.schedule);
  EXPECT_LE(after_first - made, 1u); // made here, or by an earlier test
  EXPECT_EQ(schedule_memo_made(), after_first); // the second PE made none
  EXPECT_EQ(a.schedule, b.schedule);
  EXPECT_EQ(a.mii_ps, b.mii_ps);
  EXPECT_LE(schedule_memo_size(), schedule_memo_capacity);
}

TEST(ScheduleMemo, EveryFieldOfAProblemIsInItsKey) {
  // A schedule is kept by its problem's key: two problems that differ in
  // any field must have different keys, or one would get the other's II.
  sched::problem p;
  p.pools = {{"gemm", 1}, {"dma", 2}};
  sched::op_spec op;
  op.name = "k0.gemm";
  op.latency = 4;
  op.reservation = {{{0, 1}}, {{1, 2}}};
  op.holds = {{1, 1, 3}};
  p.ops = {op, op};
  p.ops[1].name = "k1.gemm";
  p.edges = {{0, 1, 4, 0, 0}};
  auto key = [](const sched::problem& q) {
    std::string k;
    sched::append_key(k, q);
    return k;
  };
  const std::string base = key(p);
  EXPECT_EQ(key(p), base);
  std::vector<std::function<void(sched::problem&)>> changes = {
    [](auto& q) { q.source = "x"; },
    [](auto& q) { q.pools[1].capacity = 3; },
    [](auto& q) { q.pools[0].name = "math"; },
    [](auto& q) { q.ops[0].name = "k0.math"; },
    [](auto& q) { q.ops[0].latency = 5; },
    [](auto& q) { q.ops[0].reservation[1][0].count = 1; },
    [](auto& q) { q.ops[0].reservation[1][0].pool = 0; },
    [](auto& q) { q.ops[0].reservation.push_back({}); },
    [](auto& q) { q.ops[0].holds[0].cycles = 4; },
    [](auto& q) { q.ops[0].max_depth = 2; },
    [](auto& q) { q.ops[0].gid = 1; },
    [](auto& q) { q.ops[0].leader_gid = 1; },
    [](auto& q) { q.ops[0].line = 7; },
    [](auto& q) { q.edges[0].latency = 5; },
    [](auto& q) { q.edges[0].distance = 1; },
    [](auto& q) { q.edges[0].from = 1; },
    [](auto& q) { q.edges[0].line = 3; },
    [](auto& q) { q.force_serial_execution = true; },
    [](auto& q) { q.serial_threshold = 9; },
    // Moving a pool use from one cycle to the next, or an op's name into
    // the next op's: the lengths are in the key.
    [](auto& q) { q.ops[0].reservation = {{{0, 1}, {1, 2}}}; },
    [](auto& q) {
      q.ops[0].name = "k0.gemmk";
      q.ops[1].name = "1.gemm";
    },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    sched::problem q = p;
    changes[i](q);
    EXPECT_NE(key(q), base) << "change " << i;
  }
}

TEST(ScheduleMemo, KeepsOneScheduleAKeyAndRethrowsWhatMakingThrows) {
  const std::string key = "memo-test-key";
  int calls = 0;
  auto make = [&] {
    ++calls;
    tile_schedule t;
    t.ii_cycles = 42;
    return t;
  };
  const auto a = memo_schedule(key, make);
  const auto b = memo_schedule(key, make);
  EXPECT_EQ(a, b);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(a->ii_cycles, 42u);
  EXPECT_THROW(memo_schedule("memo-test-throws",
                             []() -> tile_schedule { throw std::domain_error("no"); }),
               std::domain_error);
  int later = 0;
  memo_schedule("memo-test-throws", [&] {
    ++later;
    return tile_schedule{};
  });
  EXPECT_EQ(later, 1); // nothing was kept for the key that threw
}

TEST(BackgroundJobs, RunInSubmissionOrderAndHandBackTheirExceptions) {
  std::vector<int> order; // written by the runner only, read after the last wait
  auto& jobs = background_jobs::shared();
  std::vector<std::future<int>> done;
  for (int i = 0; i < 5; ++i)
    done.push_back(jobs.submit<int>([&order, i] {
      order.push_back(i);
      return i * i;
    }));
  auto failed = jobs.submit<int>([]() -> int { throw std::runtime_error("job 6 failed"); });
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(done[static_cast<std::size_t>(i)].get(), i * i);
  EXPECT_THROW(
    {
      try {
        failed.get();
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "job 6 failed");
        throw;
      }
    },
    std::runtime_error);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

} // namespace
} // namespace kb
