// Property test: every schedule the generators emit for random problems
// passes the independent validator, and the modulo path's II stays close to
// MII: II = MII on at least 96% of unconstrained loops (issue 9).

#include "runtime/schedule/random_problem.hpp"
#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/schedule_report.hpp"
#include "runtime/schedule/validator.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace kb::sched {
namespace {

constexpr uint64_t problems = 1000;

struct tally {
  uint64_t scheduled = 0;
  uint64_t at_mii = 0;
  double ratio_sum = 0;
};

void check_all(const random_problem_options& ro, tally& t) {
  schedule_options o;
  o.requested = strategy::cost;
  for (uint64_t seed = 1; seed <= problems; ++seed) {
    const problem p = random_problem(seed, ro);
    const auto a = generate_schedule(p, o);
    ASSERT_TRUE(a.success) << p.source << ": "
                           << (a.diagnostics.empty() ? "" : a.diagnostics.back().message);
    const auto v = validate_schedule(p, a);
    ASSERT_TRUE(v.ok) << render_text(p, a, v);
    ASSERT_EQ(v.mii, a.mii) << p.source << ": generator and validator disagree on MII";
    ++t.scheduled;
    t.at_mii += *a.ii == *a.mii;
    t.ratio_sum += static_cast<double>(*a.ii) / *a.mii;
  }
}

TEST(schedule_property, every_modulo_schedule_of_1000_random_loops_validates) {
  tally t;
  check_all({}, t);
  const double at_mii = static_cast<double>(t.at_mii) / static_cast<double>(t.scheduled);
  const double mean_ratio = t.ratio_sum / static_cast<double>(t.scheduled);
  fmt::print("[ stats    ] {} loops: II = MII on {:.1f}%, mean II/MII {:.4f}\n", t.scheduled,
             100 * at_mii, mean_ratio);
  // Quality floor well below what the generator reaches, so a regression in
  // the search (not noise: the run is deterministic) fails here.
  // Issue 9: at least 96% (96.2% with the exact packing search, 96.0% with
  // the seeded restarts alone, 94.4% without either).
  EXPECT_GE(at_mii, 0.96);
  EXPECT_LE(mean_ratio, 1.0085);
}

TEST(schedule_property, constrained_random_loops_validate) {
  random_problem_options ro;
  ro.constraints = true;
  tally t;
  check_all(ro, t);
  fmt::print("[ stats    ] {} constrained loops: II = MII on {:.1f}%, mean II/MII {:.4f}\n",
             t.scheduled, 100.0 * t.at_mii / t.scheduled, t.ratio_sum / t.scheduled);
  // Floors just under what the depth-deadline retry and the seeded restarts
  // reach (74.3%, 1.1883; 67.1%, 1.2041 without them), so losing them fails.
  // With the exact packing search: 74.6%, 1.1881.
  EXPECT_GE(static_cast<double>(t.at_mii) / static_cast<double>(t.scheduled), 0.74);
  EXPECT_LE(t.ratio_sum / static_cast<double>(t.scheduled), 1.19);
}

TEST(schedule_property, serial_schedules_of_random_loops_validate) {
  schedule_options o;
  o.requested = strategy::serial;
  for (uint64_t seed = 1; seed <= problems; ++seed) {
    const problem p = random_problem(seed);
    const auto a = generate_schedule(p, o);
    ASSERT_TRUE(a.success) << p.source;
    const auto v = validate_schedule(p, a);
    ASSERT_TRUE(v.ok) << render_text(p, a, v);
  }
}

TEST(schedule_property, the_same_problem_gives_the_same_bytes) {
  schedule_options o;
  o.requested = strategy::cost;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const problem p = random_problem(seed, {.constraints = true});
    const auto first = generate_schedule(p, o);
    const auto second = generate_schedule(p, o);
    const auto v = validate_schedule(p, first);
    EXPECT_EQ(render_json(p, first, v), render_json(p, second, validate_schedule(p, second)));
  }
}

} // namespace
} // namespace kb::sched
