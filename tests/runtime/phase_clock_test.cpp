// The phases of a run (issue 31 item 1, `--timings`): a mark ends the phase
// begun at the previous one; the event loop's part comes from the shards.

#include "runtime/engine/phase_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace kb {
namespace {

using namespace std::chrono_literals;

TEST(PhaseClock, MarksEndPhasesInOrderAndTheirSumIsTheTotal) {
  phase_clock c;
  std::this_thread::sleep_for(20ms);
  c.mark("first");
  c.mark("second"); // at once: a phase may take next to nothing
  std::this_thread::sleep_for(10ms);
  c.mark("third");
  ASSERT_EQ(c.phases().size(), 3u);
  EXPECT_EQ(c.phases()[0].name, "first");
  EXPECT_EQ(c.phases()[2].name, "third");
  EXPECT_GE(c.phases()[0].wall_s, 0.020);
  EXPECT_LT(c.phases()[1].wall_s, c.phases()[0].wall_s);
  EXPECT_GE(c.phases()[2].wall_s, 0.010);
  double sum = 0;
  for (const auto& p : c.phases()) {
    sum += p.wall_s;
    EXPECT_FALSE(p.event_loop);
    EXPECT_GT(p.rss_bytes, 0u) << p.name; // /proc/self/statm is there on Linux
  }
  EXPECT_NEAR(c.total_s(), sum, 1e-9);
  EXPECT_NEAR(c.outside_s(), sum, 1e-9); // no event loop: all of it is outside
  EXPECT_GT(peak_resident_bytes(), 0u);
}

TEST(PhaseClock, TheEventLoopIsTheShardsPartOfItsPhaseAndTheRestFollowsIt) {
  phase_clock c;
  c.mark("set-up");
  std::this_thread::sleep_for(30ms);
  c.mark_event_loop(0.010, "collect the results"); // the shards ran 10 ms of it
  ASSERT_EQ(c.phases().size(), 3u);
  EXPECT_EQ(c.phases()[1].name, "event loop");
  EXPECT_TRUE(c.phases()[1].event_loop);
  EXPECT_DOUBLE_EQ(c.phases()[1].wall_s, 0.010);
  EXPECT_EQ(c.phases()[2].name, "collect the results");
  EXPECT_GE(c.phases()[2].wall_s, 0.019);
  EXPECT_NEAR(c.total_s() - c.outside_s(), 0.010, 1e-9);
}

// A split run's shards first wait for other processes' set-up: that
// wait is its own phase, before the event loop, not part of the collection.
TEST(PhaseClock, ASplitRunsWaitForTheOtherProcessesComesBeforeItsEventLoop) {
  phase_clock c;
  std::this_thread::sleep_for(40ms);
  c.mark_event_loop(0.010, "collect the results", 0.020);
  ASSERT_EQ(c.phases().size(), 3u);
  EXPECT_EQ(c.phases()[0].name, "wait for other processes");
  EXPECT_DOUBLE_EQ(c.phases()[0].wall_s, 0.020);
  EXPECT_FALSE(c.phases()[0].event_loop);
  EXPECT_EQ(c.phases()[1].name, "event loop");
  EXPECT_EQ(c.phases()[2].name, "collect the results");
  EXPECT_GE(c.phases()[2].wall_s, 0.009);
  EXPECT_NEAR(c.phases()[0].wall_s + c.phases()[1].wall_s + c.phases()[2].wall_s, c.total_s(),
              1e-9);
  // A wait longer than what the loop left is cut to it.
  phase_clock d;
  d.mark_event_loop(0.0, "collect the results", 100.0);
  EXPECT_DOUBLE_EQ(d.phases()[2].wall_s, 0.0);
}

TEST(PhaseClock, AnEventLoopLongerThanItsPhaseIsCutToThePhase) {
  phase_clock c;
  std::this_thread::sleep_for(5ms);
  c.mark_event_loop(100.0, "collect the results"); // a shard's clock ran ahead
  ASSERT_EQ(c.phases().size(), 2u);
  EXPECT_LT(c.phases()[0].wall_s, 1.0);
  EXPECT_DOUBLE_EQ(c.phases()[1].wall_s, 0.0);
  EXPECT_NEAR(c.outside_s(), 0.0, 1e-12);
}

} // namespace
} // namespace kb
