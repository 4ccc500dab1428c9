// `--memory` at the engine (issue 31 item 2): with run_options::measure_nodes
// every node's summary carries the heap it held once built. A node that
// keeps a 1 MiB buffer reports that much more than a plain one; without the
// option nothing is measured, and the run's results never change.

#include "runtime/engine/simulation.hpp"
#include "tests/runtime/test_nodes.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kb {
namespace {

using test::consumer;
using test::producer;

constexpr size_t big = 1 << 20;

/// A consumer that also holds `big` bytes from its constructor on.
class heavy_consumer : public consumer {
public:
  heavy_consumer(caf::actor_config& cfg, node_init init, SimTime service)
    : consumer(cfg, std::move(init), service), buffer_(big, 1) {}

private:
  std::vector<char> buffer_;
};

// Nodes are built in id (name) order; the first one built also takes what
// the actor system allocates once, on its first actor: "first" is a plain
// consumer, and "heavy" and "light" are compared.
run_result run_pair(bool measure, size_t threads) {
  simulation sim;
  sim.add_node("first", make_node_factory<consumer>(ns(10)));
  sim.add_node("heavy", make_node_factory<heavy_consumer>(ns(10)));
  sim.add_node("light", make_node_factory<consumer>(ns(10)));
  sim.add_node("producer", make_node_factory<producer>(4u, ns(1)));
  for (const char* to : {"first", "heavy", "light"})
    sim.add_link("producer", to, ns(1), std::nullopt, 2);
  run_options o;
  o.threads = threads;
  o.measure_nodes = measure;
  return sim.run(o);
}

const node_summary& summary_of(const run_result& r, const std::string& name) {
  for (const auto& s : r.nodes)
    if (s.name == name)
      return s;
  throw std::runtime_error("no node " + name);
}

TEST(NodeMemory, EachNodeReportsTheHeapItHeldOnceBuilt) {
  for (size_t threads : {1u, 2u}) {
    const run_result r = run_pair(true, threads);
    ASSERT_EQ(r.error, "");
    const uint64_t heavy = summary_of(r, "heavy").stats.build_bytes;
    const uint64_t light = summary_of(r, "light").stats.build_bytes;
    const uint64_t prod = summary_of(r, "producer").stats.build_bytes;
    // A node is at least its object (the engine's base alone is over 1 KiB)
    // and, built from the same init as `heavy`, `light` differs from it by
    // the buffer alone: give or take the allocator's rounding, and what the
    // actor system's other threads allocate meanwhile (the heap is the
    // process's; about 10 KiB once, as its workers start).
    EXPECT_GE(light, sizeof(consumer)) << threads;
    EXPECT_GE(prod, sizeof(producer)) << threads;
    EXPECT_LT(light, 128u * 1024) << threads;
    EXPECT_GE(heavy, light + big - 16 * 1024) << threads;
    EXPECT_LE(heavy, light + big + 64 * 1024) << threads;
  }
}

TEST(NodeMemory, NothingIsMeasuredUnlessAskedAndResultsAreTheSame) {
  const run_result off = run_pair(false, 1), on = run_pair(true, 1);
  ASSERT_EQ(off.error, "");
  ASSERT_EQ(on.error, "");
  ASSERT_EQ(off.nodes.size(), on.nodes.size());
  for (size_t i = 0; i < off.nodes.size(); ++i) {
    EXPECT_EQ(off.nodes[i].stats.build_bytes, 0u) << off.nodes[i].name;
    EXPECT_GT(on.nodes[i].stats.build_bytes, 0u) << on.nodes[i].name;
    EXPECT_EQ(off.nodes[i].stats.events, on.nodes[i].stats.events);
    EXPECT_EQ(off.nodes[i].stats.last_event_ps, on.nodes[i].stats.last_event_ps);
    EXPECT_EQ(off.nodes[i].figures.size(), on.nodes[i].figures.size());
  }
}

} // namespace
} // namespace kb
