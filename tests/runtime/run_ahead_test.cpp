// A node that runs ahead in the shard loop (ADR-0016) must still see every
// event in key order: here node "a" has a timer every 10 ns and plays ping
// pong with "b" (a -> b 5 ns, b -> a 7 ns), so each echo lands between two
// timers that "a" could otherwise run ahead to. The order "a" sees is derived
// by hand and is the same in every delivery mode and sharding.

#include "runtime/engine/simulation.hpp"
#include "runtime/stat_decl.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

constexpr stat_decl st_event = declare_stat("test", "event_{}", stat_unit::ps, "");
constexpr stat_decl st_events = declare_stat("test", "events", stat_unit::count, "");

constexpr uint16_t tick = first_user_kind;
constexpr uint16_t ping = first_user_kind + 1;

outgoing a_ping() {
  outgoing m;
  m.kind = ping;
  return m;
}

/// Sets timers at 0, 10, ..., 90 ns and pings its only link at 0 and on every
/// echo; records each event as time in ns * 10 + (0 timer, 1 echo).
class pinger : public node {
public:
  using node::node;

protected:
  void on_start() override {
    for (uint64_t t = 0; t < 100; t += 10)
      schedule(ns(t), tick);
  }
  void on_message(sim_event& ev) override {
    const bool echo = ev.kind == ping;
    seen_.push_back(now().ps() / 1000 * 10 + (echo ? 1 : 0));
    if (echo || now() == SimTime::zero())
      send_on(0, a_ping());
  }
  void on_finish() override {
    for (size_t i = 0; i < seen_.size(); ++i)
      add_figure(st_event, std::to_string(i), seen_[i]);
    add_figure(st_events, seen_.size());
  }

private:
  std::vector<uint64_t> seen_;
};

/// Sends every message straight back.
class echoer : public node {
public:
  using node::node;

protected:
  void on_message(sim_event&) override { send_on(0, a_ping()); }
};

std::vector<uint64_t> run_ping_pong(size_t threads, uint32_t shards, delivery_mode d) {
  simulation sim;
  sim.add_node("a", make_node_factory<pinger>());
  sim.add_node("b", make_node_factory<echoer>());
  sim.add_link("a", "b", ns(5));
  sim.add_link("b", "a", ns(7));
  run_options o;
  o.end = ns(100);
  o.threads = threads;
  o.shards = shards;
  o.exact_shards = true;
  o.delivery = d;
  const run_result r = sim.run(o);
  EXPECT_EQ(r.error, "");
  std::vector<uint64_t> seen;
  const uint64_t n = figure_of(r, "a", "events");
  for (uint64_t i = 0; i < n; ++i)
    seen.push_back(figure_of(r, "a", "event_" + std::to_string(i)));
  return seen;
}

TEST(RunAhead, AnEchoIsSeenBetweenTheTimersAroundIt) {
  // Echoes arrive every 12 ns (5 + 7): at 12, 24, ..., 96. At 60 ns the
  // timer goes first: its sender "a" has the lower node id.
  const std::vector<uint64_t> expected{0,   100, 121, 200, 241, 300, 361, 400, 481,
                                       500, 600, 601, 700, 721, 800, 841, 900, 961};
  EXPECT_EQ(run_ping_pong(1, 0, delivery_mode::direct), expected);
  EXPECT_EQ(run_ping_pong(1, 0, delivery_mode::mailbox), expected);
  EXPECT_EQ(run_ping_pong(2, 2, delivery_mode::direct), expected); // a and b apart
  EXPECT_EQ(run_ping_pong(2, 2, delivery_mode::mailbox), expected);
}

} // namespace
} // namespace kb
