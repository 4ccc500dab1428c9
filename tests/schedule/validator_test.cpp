// The independent validator on hand-built problems and hand-built analyses
// (no generator is called): correct schedules pass, and every kind of
// violation is reported with a message naming the op, edge, slot or pool.

#include <gtest/gtest.h>

#include "runtime/schedule/validator.hpp"

#include <initializer_list>

namespace kb::sched {
namespace {

using strings = std::vector<std::string>;

op_spec make_op(std::string name, int64_t latency, std::vector<std::vector<pool_use>> res = {}) {
  op_spec op;
  op.name = std::move(name);
  op.latency = latency;
  op.reservation = std::move(res);
  return op;
}

edge_spec make_edge(uint32_t from, uint32_t to, int64_t latency, uint32_t distance = 0) {
  edge_spec e;
  e.from = from;
  e.to = to;
  e.latency = latency;
  e.distance = distance;
  return e;
}

constexpr uint32_t dma = 0;
constexpr uint32_t tc = 1;

/// load_a, load_b → mma (self-recurrence, distance 1) → store; dma and tc have
/// one unit each. ResMII 3 (three dma cycles), RecMII 2, MII 3.
problem pipeline() {
  problem p;
  p.pools = {{"dma", 1}, {"tc", 1}};
  p.ops = {make_op("load_a", 4, {{{dma, 1}}}), make_op("load_b", 4, {{{dma, 1}}}),
           make_op("mma", 2, {{{tc, 1}}, {{tc, 1}}}), make_op("store", 1, {{{dma, 1}}})};
  p.edges = {make_edge(0, 2, 4), make_edge(1, 2, 4), make_edge(2, 2, 2, 1), make_edge(2, 3, 2)};
  return p;
}

op_seat modulo_seat(int64_t t, uint32_t ii, uint32_t order, int64_t t_min = 0) {
  op_seat s;
  s.cycle = t;
  s.slot = static_cast<uint32_t>(t % ii);
  s.depth = static_cast<uint32_t>(t / ii);
  s.stage = static_cast<uint32_t>((t - t_min) / ii);
  s.order = order;
  return s;
}

/// A correct II = 3 schedule of `pipeline()`: load_a 0, load_b 1, mma 5,
/// store 8 (dma in slots 0, 1, 2; tc in slots 2, 0).
schedule_analysis pipeline_schedule(const problem& p) {
  schedule_analysis a;
  a.used = strategy::cost;
  a.success = true;
  a.ii = 3;
  a.mii = 3;
  a.res_mii = 3;
  a.rec_mii = 2;
  a.seats = {modulo_seat(0, 3, 0), modulo_seat(1, 3, 1), modulo_seat(5, 3, 2),
             modulo_seat(8, 3, 3)};
  a.edges = p.edges;
  return a;
}

strings violations_of(const problem& p, const schedule_analysis& a) {
  const validation v = validate_schedule(p, a);
  EXPECT_EQ(v.ok, v.violations.empty());
  return v.violations;
}

// -- independent MII -------------------------------------------------------------

TEST(independent_mii, pipeline) {
  const validation v = independent_mii(pipeline());
  EXPECT_EQ(v.res_mii, 3u);
  EXPECT_EQ(v.rec_mii, 2u);
  EXPECT_EQ(v.mii, 3u);
}

TEST(independent_mii, recurrence_bound) {
  problem p;
  p.ops = {make_op("a", 3), make_op("b", 4)};
  p.edges = {make_edge(0, 1, 3), make_edge(1, 0, 4, 2)}; // latency 7, distance 2
  const validation v = independent_mii(p);
  EXPECT_EQ(v.res_mii, 1u);
  EXPECT_EQ(v.rec_mii, 4u);
  EXPECT_EQ(v.mii, 4u);
}

TEST(independent_mii, tightest_of_several_recurrences) {
  problem p;
  p.ops = {make_op("a", 1), make_op("b", 1), make_op("c", 1)};
  // a↔b: latency 5 over distance 1 → 5; b↔c: latency 9 over distance 3 → 3.
  p.edges = {make_edge(0, 1, 2), make_edge(1, 0, 3, 1), make_edge(1, 2, 4),
             make_edge(2, 1, 5, 3)};
  EXPECT_EQ(independent_mii(p).rec_mii, 5u);
}

TEST(independent_mii, resource_bound) {
  problem p;
  p.pools = {{"dma", 1}};
  for (const char* name : {"x", "y", "z"})
    p.ops.push_back(make_op(name, 1, {{{dma, 1}}, {{dma, 1}}}));
  const validation v = independent_mii(p);
  EXPECT_EQ(v.res_mii, 6u);
  EXPECT_EQ(v.rec_mii, 1u);
  EXPECT_EQ(v.mii, 6u);
}

TEST(independent_mii, resource_sums_round_up_per_pool) {
  problem p;
  p.pools = {{"smem_rd", 5}, {"tc", 2}};
  p.ops = {make_op("x", 1, {{{0, 4}, {1, 1}}, {{0, 3}}}), make_op("y", 1, {{{1, 2}}})};
  EXPECT_EQ(independent_mii(p).res_mii, 2u); // smem_rd 7/5 → 2; tc 3/2 → 2
}

TEST(independent_mii, no_ops_no_edges) {
  const validation v = independent_mii(problem{});
  EXPECT_EQ(v.res_mii, 1u);
  EXPECT_EQ(v.rec_mii, 1u);
  EXPECT_EQ(v.mii, 1u);
}

TEST(independent_mii, zero_distance_cycle_has_no_mii) {
  problem p;
  p.ops = {make_op("a", 0), make_op("b", 0)};
  p.edges = {make_edge(0, 1, 0), make_edge(1, 0, 0)};
  const validation v = independent_mii(p);
  EXPECT_EQ(v.res_mii, 1u);
  EXPECT_FALSE(v.rec_mii);
  EXPECT_FALSE(v.mii);
}

TEST(independent_mii, zero_distance_self_loop_has_no_mii) {
  problem p;
  p.ops = {make_op("a", 0)};
  p.edges = {make_edge(0, 0, 0)};
  EXPECT_FALSE(independent_mii(p).rec_mii);
}

TEST(independent_mii, zero_latency_carried_cycle_is_one) {
  problem p;
  p.ops = {make_op("a", 0)};
  p.edges = {make_edge(0, 0, 0, 1)};
  EXPECT_EQ(independent_mii(p).rec_mii, 1u);
}

// -- modulo path -----------------------------------------------------------------

TEST(validate_modulo, correct_schedule_passes) {
  const problem p = pipeline();
  const validation v = validate_schedule(p, pipeline_schedule(p));
  EXPECT_TRUE(v.ok);
  EXPECT_EQ(v.violations, strings{});
  EXPECT_EQ(v.mii, 3u);
}

TEST(validate_modulo, edge_violated) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.seats[2] = modulo_seat(4, 3, 2); // mma one cycle before load_b's result
  EXPECT_EQ(violations_of(p, a),
            strings{"edge load_b -> mma (distance 0): t(mma)=4 < t(load_b)+4-0*II = 5"});
}

TEST(validate_modulo, loop_carried_edge_violated) {
  problem p = pipeline();
  p.edges[2].latency = 4; // mma → mma: needs II ≥ 4
  auto a = pipeline_schedule(p);
  EXPECT_EQ(violations_of(p, a),
            (strings{"the generator reports MII 3 (ResMII 3, RecMII 2) but it is 4 (ResMII 3, "
                     "RecMII 4)",
                     "II 3 < MII 4 (ResMII 3, RecMII 4)",
                     "edge mma -> mma (distance 1): t(mma)=5 < t(mma)+4-1*II = 6"}));
}

TEST(validate_modulo, slot_over_capacity) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.seats[3] = modulo_seat(7, 3, 3); // store's dma now shares slot 1 with load_b
  EXPECT_EQ(violations_of(p, a),
            strings{"slot 1 pool 'dma': use 2 > capacity 1 (ops load_b, store)"});
}

TEST(validate_modulo, ii_below_mii) {
  problem p;
  p.pools = {{"dma", 1}};
  p.ops = {make_op("x", 1, {{{dma, 1}}, {{dma, 1}}})};
  schedule_analysis a;
  a.used = strategy::cost;
  a.success = true;
  a.ii = 1;
  a.seats = {modulo_seat(0, 1, 0)};
  EXPECT_EQ(violations_of(p, a), (strings{"II 1 < MII 2 (ResMII 2, RecMII 1)",
                                          "slot 0 pool 'dma': use 2 > capacity 1 (ops x)"}));
}

TEST(validate_modulo, wrong_stage) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.seats[3].stage = 1;
  EXPECT_EQ(violations_of(p, a),
            strings{"op 'store': stage 1 but (t - t_min) div II = (8 - 0) div 3 = 2"});
}

TEST(validate_modulo, stage_counts_from_the_earliest_op) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  const int64_t t[] = {3, 4, 8, 11}; // everything one II later: depths grow, stages do not
  for (uint32_t i = 0; i < 4; ++i)
    a.seats[i] = modulo_seat(t[i], 3, i, 3);
  EXPECT_EQ(violations_of(p, a), strings{});
  a.seats[0].stage = 1; // depth, not stage
  EXPECT_EQ(violations_of(p, a),
            strings{"op 'load_a': stage 1 but (t - t_min) div II = (3 - 3) div 3 = 0"});
}

TEST(validate_modulo, wrong_slot_and_depth) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.seats[3].slot = 0;
  a.seats[1].depth = 1;
  EXPECT_EQ(violations_of(p, a), (strings{"op 'load_b': depth 1 but t div II = 1 div 3 = 0",
                                          "op 'store': slot 0 but t mod II = 8 mod 3 = 2"}));
}

TEST(validate_modulo, missing_cycle) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.seats[1].cycle.reset();
  a.seats[1].slot.reset();
  EXPECT_EQ(violations_of(p, a), (strings{"op 'load_b': no cycle on the modulo path",
                                          "op 'load_b': no slot on the modulo path"}));
}

TEST(validate_modulo, missing_ii) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.ii.reset();
  EXPECT_EQ(violations_of(p, a), strings{"the modulo schedule has no II"});
  a.ii = 0;
  EXPECT_EQ(violations_of(p, a), strings{"II is 0"});
}

TEST(validate_modulo, duplicate_and_missing_order) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.seats[1].order = 0;
  EXPECT_EQ(violations_of(p, a), (strings{"order 0 is given to both op 'load_a' and op 'load_b'",
                                          "order 1 is given to no op"}));
}

TEST(validate_modulo, order_out_of_range) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.seats[3].order = 4;
  EXPECT_EQ(violations_of(p, a), (strings{"op 'store': order 4 is out of range (ops: 4)",
                                          "order 3 is given to no op"}));
}

TEST(validate_modulo, order_not_sorted_by_cycle) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  std::swap(a.seats[0].order, a.seats[1].order);
  EXPECT_EQ(violations_of(p, a),
            (strings{"op 'load_a': order 1, expected 0 (sorted by cycle, then program order)",
                     "op 'load_b': order 0, expected 1 (sorted by cycle, then program order)"}));
}

TEST(validate_modulo, max_depth_exceeded) {
  problem p = pipeline();
  p.ops[3].max_depth = 1;
  EXPECT_EQ(violations_of(p, pipeline_schedule(p)),
            strings{"op 'store': depth 2 exceeds max_depth 1"});
  p.ops[3].max_depth = 2;
  EXPECT_EQ(violations_of(p, pipeline_schedule(p)), strings{});
}

TEST(validate_modulo, group_depths_differ) {
  problem p = pipeline();
  p.ops[0].gid = 1;
  p.ops[2].leader_gid = 1;
  EXPECT_EQ(violations_of(p, pipeline_schedule(p)),
            strings{"same-depth group of gid 1: op 'load_a' has depth 0 but op 'mma' has "
                    "depth 1"});
}

TEST(validate_modulo, groups_join_through_leader_gids) {
  problem p = pipeline();
  p.ops[0].gid = 1;
  p.ops[1].gid = 2;
  p.ops[1].leader_gid = 1; // group 2 joins group 1
  EXPECT_EQ(violations_of(p, pipeline_schedule(p)), strings{}); // both at depth 0
  p.ops[3].leader_gid = 2;                                     // store joins too, at depth 2
  EXPECT_EQ(violations_of(p, pipeline_schedule(p)),
            strings{"same-depth group of gid 1: op 'load_a' has depth 0 but op 'store' has "
                    "depth 2"});
}

TEST(validate_modulo, edges_must_match_the_problem) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.edges.pop_back();
  EXPECT_EQ(violations_of(p, a), strings{"the analysis has 3 edges but the problem has 4"});
  a.edges = p.edges;
  a.edges[0].latency = 1;
  EXPECT_EQ(violations_of(p, a),
            strings{"edge #0: the analysis has load_a -> mma (distance 0) latency 1, the "
                    "problem load_a -> mma (distance 0) latency 4"});
}

TEST(validate_modulo, zero_distance_cycle_has_no_valid_ii) {
  problem p;
  p.ops = {make_op("a", 0), make_op("b", 0)};
  p.edges = {make_edge(0, 1, 0), make_edge(1, 0, 0)};
  schedule_analysis a;
  a.used = strategy::cost;
  a.success = true;
  a.ii = 1;
  a.seats = {modulo_seat(0, 1, 0), modulo_seat(0, 1, 1)};
  a.edges = p.edges;
  EXPECT_EQ(violations_of(p, a),
            strings{"II 1 but the problem has a zero-distance dependence cycle (no finite MII)"});
}

// -- whole analysis --------------------------------------------------------------

TEST(validate_schedule, failed_analysis_is_one_violation) {
  const problem p = pipeline();
  schedule_analysis a;
  a.success = false;
  a.note(diagnostic::level::warning, "ignored");
  a.note(diagnostic::level::error, "dependence cycle: a -> b -> a");
  EXPECT_EQ(violations_of(p, a), strings{"the schedule failed: dependence cycle: a -> b -> a"});
}

TEST(validate_schedule, seat_count_must_match) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.seats.pop_back();
  EXPECT_EQ(violations_of(p, a), strings{"3 seats for 4 ops"});
}

TEST(validate_schedule, automatic_is_not_a_used_strategy) {
  const problem p = pipeline();
  auto a = pipeline_schedule(p);
  a.used = strategy::automatic;
  EXPECT_EQ(violations_of(p, a),
            strings{"the analysis names strategy 'auto', not serial or cost"});
}

// -- serial path ----------------------------------------------------------------

/// a, b, c, d with c → a (distance 0) and d → a (distance 1): Kahn's walk in
/// program order gives b, c, a, d.
problem diamond() {
  problem p;
  p.ops = {make_op("a", 1), make_op("b", 1), make_op("c", 1), make_op("d", 1)};
  p.edges = {make_edge(2, 0, 1), make_edge(3, 0, 1, 1)};
  return p;
}

schedule_analysis serial_with_orders(const problem& p, std::initializer_list<uint32_t> orders) {
  schedule_analysis a;
  a.used = strategy::serial;
  a.success = true;
  for (uint32_t o : orders) {
    op_seat s;
    s.order = o;
    a.seats.push_back(s);
  }
  a.edges = p.edges;
  return a;
}

TEST(validate_serial, kahn_order_passes) {
  const problem p = diamond();
  EXPECT_EQ(violations_of(p, serial_with_orders(p, {2, 0, 1, 3})), strings{});
}

TEST(validate_serial, other_topological_order_fails) {
  const problem p = diamond();
  // c, b, a, d respects c → a but does not take the earliest ready op first.
  EXPECT_EQ(violations_of(p, serial_with_orders(p, {2, 1, 0, 3})),
            (strings{"order 0: op 'c' is placed, but the earliest ready op in program order "
                     "is 'b'",
                     "order 1: op 'b' is placed, but the earliest ready op in program order "
                     "is 'a'"}));
}

TEST(validate_serial, backward_edge_fails) {
  const problem p = diamond();
  EXPECT_EQ(violations_of(p, serial_with_orders(p, {0, 1, 2, 3})),
            (strings{"edge c -> a (distance 0): 'a' at order 0 is not after 'c' at order 2",
                     "order 0: op 'a' is placed, but the earliest ready op in program order "
                     "is 'b'"}));
}

TEST(validate_serial, nonzero_stage_fails) {
  const problem p = diamond();
  auto a = serial_with_orders(p, {2, 0, 1, 3});
  a.seats[3].stage = 1;
  EXPECT_EQ(violations_of(p, a), strings{"op 'd': stage 1 on the serial path (must be 0)"});
}

TEST(validate_serial, zero_distance_cycle_fails) {
  problem p;
  p.ops = {make_op("a", 1), make_op("b", 1)};
  p.edges = {make_edge(0, 1, 1), make_edge(1, 0, 0)};
  EXPECT_EQ(violations_of(p, serial_with_orders(p, {0, 1})),
            (strings{"edge b -> a (distance 0): 'a' at order 0 is not after 'b' at order 1",
                     "order 0: op 'a' is placed but no op is ready (a zero-distance "
                     "dependence cycle)"}));
}

} // namespace
} // namespace kb::sched
