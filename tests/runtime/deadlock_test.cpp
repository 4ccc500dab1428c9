// A deadlock in the modelled machine is detected and reported with the nodes
// involved, never waited on, whichever way events are delivered.

#include "runtime/engine/simulation.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

// Sends two messages into queue 0 of its only link at time 0 and never takes
// from its own queue 0 (as a unit that must forward before it takes the
// next). Two of them joined by depth-1 links wait on each other's credit:
// each peer's queue holds one message and each link holds the second.
class credit_hog : public node {
public:
  using node::node;

protected:
  void on_start() override {
    for (int i = 0; i < 2; ++i) {
      outgoing m;
      m.queue = 0;
      send_on(0, std::move(m));
    }
  }
  void on_message(sim_event&) override {}
};

class DeadlockTest : public ::testing::TestWithParam<delivery_mode> {};

TEST_P(DeadlockTest, ACyclicCreditWaitIsReportedWithTheNodesInvolved) {
  simulation sim;
  sim.add_node("a", make_node_factory<credit_hog>());
  sim.add_node("b", make_node_factory<credit_hog>());
  sim.add_node("idle", make_node_factory<credit_hog>());
  sim.add_link("a", "b", ns(1), std::nullopt, 1);
  sim.add_link("b", "a", ns(1), std::nullopt, 1);
  sim.add_link("idle", "idle2", ns(1), std::nullopt, 0);
  sim.add_node("idle2", make_node_factory<credit_hog>());
  sim.add_link("idle2", "idle", ns(1), std::nullopt, 0);
  run_options o;
  o.delivery = GetParam();
  const run_result r = sim.run(o);
  // idle/idle2 have unbounded links: their messages land in the queues,
  // which counts as work held too (nobody takes them).
  EXPECT_EQ(r.error,
            "deadlock: the machine went quiet with work pending:\n"
            "  a: 1 queued message(s), 1 link(s) holding messages for lack of credit\n"
            "  b: 1 queued message(s), 1 link(s) holding messages for lack of credit\n"
            "  idle: 2 queued message(s), 0 link(s) holding messages for lack of credit\n"
            "  idle2: 2 queued message(s), 0 link(s) holding messages for lack of credit");
}

TEST_P(DeadlockTest, PendingWorkAtAnEndTimeIsNotADeadlock) {
  simulation sim;
  sim.add_node("a", make_node_factory<credit_hog>());
  sim.add_node("b", make_node_factory<credit_hog>());
  sim.add_link("a", "b", ns(1), std::nullopt, 1);
  sim.add_link("b", "a", ns(1), std::nullopt, 1);
  run_options o;
  o.delivery = GetParam();
  o.end = ns(100);
  const run_result r = sim.run(o);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0].pending, "1 queued message(s), 1 link(s) holding messages for lack of credit");
}

INSTANTIATE_TEST_SUITE_P(Delivery, DeadlockTest,
                         ::testing::Values(delivery_mode::direct, delivery_mode::mailbox),
                         [](const auto& info) { return std::string(to_string(info.param)); });

} // namespace
} // namespace kb
