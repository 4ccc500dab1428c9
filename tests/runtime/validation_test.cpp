// Bad machine descriptions are rejected with a message naming the culprit.

#include "runtime/engine/simulation.hpp"
#include "tests/runtime/test_nodes.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::ring_member;

std::string error_of(const std::function<void(simulation&)>& build) {
  simulation sim;
  try {
    build(sim);
    sim.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Validation, ZeroLatencyLinkIsRejected) {
  auto msg = error_of([](simulation& s) {
    s.add_node("a", make_node_factory<ring_member>(0u, 0u));
    s.add_node("b", make_node_factory<ring_member>(0u, 0u));
    s.add_link("a", "b", ps(0));
  });
  EXPECT_EQ(msg, "link a -> b: latency must be >= 1 ps (a zero-latency link "
                 "cannot be synchronised conservatively)");
}

TEST(Validation, LinkFromUnknownNodeAfterAKnownSourcesLinksIsRejected) {
  // A source's links are resolved once per run of them: a new name after
  // the run is looked up again, not taken for the last source.
  auto msg = error_of([](simulation& s) {
    s.add_node("a", make_node_factory<ring_member>(0u, 0u));
    s.add_node("b", make_node_factory<ring_member>(0u, 0u));
    s.add_link("a", "b", ns(1));
    s.add_link("a", "a", ns(1));
    s.add_link("ab", "b", ns(1));
  });
  EXPECT_EQ(msg, "link ab -> b: unknown source node 'ab'");
}

TEST(Validation, LinkToUnknownNodeIsRejected) {
  auto msg = error_of([](simulation& s) {
    s.add_node("a", make_node_factory<ring_member>(0u, 0u));
    s.add_link("a", "nowhere", ns(1));
  });
  EXPECT_EQ(msg, "link a -> nowhere: unknown destination node 'nowhere'");
}

TEST(Validation, DuplicateNodeIsRejected) {
  auto msg = error_of([](simulation& s) {
    s.add_node("a", make_node_factory<ring_member>(0u, 0u));
    s.add_node("a", make_node_factory<ring_member>(0u, 0u));
  });
  EXPECT_EQ(msg, "duplicate node id 'a'");
}

TEST(Validation, ZeroBandwidthIsRejected) {
  auto msg = error_of([](simulation& s) {
    s.add_node("a", make_node_factory<ring_member>(0u, 0u));
    s.add_node("b", make_node_factory<ring_member>(0u, 0u));
    s.add_link("a", "b", ns(1), Bandwidth{0});
  });
  EXPECT_EQ(msg, "link a -> b: bandwidth must be > 0");
}

// A node kind that throws: the run stops and names node and time.
class thrower : public node {
public:
  using node::node;

protected:
  void on_start() override { schedule(ns(5), first_user_kind); }
  void on_message(sim_event&) override {
    throw std::runtime_error("tile 3 completed twice");
  }
};

TEST(Validation, NodeFailureIsReportedWithNameAndTime) {
  simulation sim;
  sim.add_node("pe0.unit", make_node_factory<thrower>());
  run_result r = sim.run({});
  EXPECT_EQ(r.error, "pe0.unit at t=5000 ps: tile 3 completed twice");
}

// A node kind whose constructor refuses its parameters, as a kind's config
// check does.
class refuser : public node {
public:
  refuser(caf::actor_config& cfg, node_init init, std::string why) : node(cfg, std::move(init)) {
    throw std::invalid_argument(why);
  }

protected:
  void on_message(sim_event&) override {}
};

// Nodes are built by one thread per shard when the run has several: the
// error reported is still the one of the lowest node id (the one a
// sequential build meets first), and the run ends instead of hanging on the
// nodes already spawned.
TEST(Validation, TheFirstNodeThatCannotBeBuiltIsReportedWhateverTheThreads) {
  for (size_t threads : {1, 2, 4}) {
    simulation sim;
    sim.set_grouping([](const std::string& name, const node_place&) { return name.substr(0, 2); });
    for (const char* g : {"a.", "b.", "c.", "d."})
      for (int i = 0; i < 8; ++i)
        sim.add_node(g + std::to_string(i), make_node_factory<ring_member>(0u, 0u));
    sim.add_node("c.9", make_node_factory<refuser>(std::string("c.9: no such impl")));
    sim.add_node("b.9", make_node_factory<refuser>(std::string("b.9: bad lanes")));
    run_options o;
    o.threads = threads;
    o.end = ns(10); // an end time: one shard per thread
    try {
      (void)sim.run(o);
      ADD_FAILURE() << "no error with " << threads << " thread(s)";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "b.9: bad lanes") << threads << " thread(s)";
    }
  }
}

} // namespace
} // namespace kb
