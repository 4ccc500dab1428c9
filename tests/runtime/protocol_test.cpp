// Protocol messages survive the Cap'n Proto encoding used across processes.

#include "runtime/engine/event_queue.hpp"
#include "runtime/engine/protocol.hpp"

#include "messages/sim.capnp.h"

#include <capnp/serialize.h>
#include <gtest/gtest.h>
#include <kj/exception.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

namespace kb {
namespace {

TEST(Protocol, BatchRoundTripsThroughCapnp) {
  event_batch b;
  b.kind = batch_kind::peer;
  b.node = 7;
  b.time = ps(123456789);
  b.from = 3;
  b.need = true;
  b.error = "boom";
  sim_event e;
  e.set_key(ns(5), 4, 99);
  e.tail = ns(9);
  e.dst = 11;
  e.queue = 2;
  e.kind = 17;
  e.link = 5;
  e.bytes = 32768;
  e.arg0 = 0xdeadbeef;
  e.arg1 = 42;
  auto body = std::make_unique<capnp::MallocMessageBuilder>();
  auto root = body->initRoot<wire::Batch>(); // any struct will do
  root.setNode(1234);
  e.body = message_body{std::move(body)};
  b.events.push_back(std::move(e));

  event_batch d = decode_batch(encode_batch(b));
  EXPECT_EQ(d.kind, batch_kind::peer);
  EXPECT_EQ(d.node, 7u);
  EXPECT_EQ(d.time, ps(123456789));
  EXPECT_EQ(d.from, 3u);
  EXPECT_TRUE(d.need);
  EXPECT_EQ(d.error, "boom");
  ASSERT_EQ(d.events.size(), 1u);
  const sim_event& x = d.events[0];
  EXPECT_EQ(x.key(), (event_key{ns(5), 4, 99}));
  EXPECT_EQ(x.tail, ns(9));
  EXPECT_EQ(x.dst, 11u);
  EXPECT_EQ(x.queue, 2);
  EXPECT_EQ(x.kind, 17);
  EXPECT_EQ(x.link, 5u);
  EXPECT_EQ(x.bytes, 32768u);
  EXPECT_EQ(x.arg0, 0xdeadbeefu);
  EXPECT_EQ(x.arg1, 42u);
  ASSERT_FALSE(x.body.empty());
  EXPECT_EQ(x.body.root<wire::Batch>().getNode(), 1234u);
}

// The control messages that cross processes with data (ADR-0010): a run
// result with every field set, and an LBTS snapshot.
TEST(Protocol, ARunResultRoundTripsThroughCapnp) {
  run_result r;
  r.hub = {11, 12, 13, 14, 15, 16, 17, 18, 19};
  r.error = "shard 1: something failed";
  node_summary a;
  a.node = 7;
  a.name = "sip0.cube1.pe2.pe_dma";
  a.stats = {100, 200, 300, 400, 5120};
  a.figures = {{"{}.busy_ps", 244000, 0x9e3779b9u, "read"}, {"requests", 3, 17u, ""}};
  a.records = {'\x01', '\0', '\x7f'};
  a.ops = {'o', 'p'};
  a.pending = "a token waits for credit";
  node_summary b; // every field empty
  b.node = 8;
  r.nodes = {a, b};
  const run_result d = decode_result(encode_result(r));
  EXPECT_EQ(d.hub.windows, 11u);
  EXPECT_EQ(d.hub.yield_msgs, 18u);
  EXPECT_EQ(d.hub.run_wall_ns, 19u);
  EXPECT_EQ(d.error, r.error);
  ASSERT_EQ(d.nodes.size(), 2u);
  const node_summary& x = d.nodes[0];
  EXPECT_EQ(x.node, 7u);
  EXPECT_EQ(x.name, a.name);
  EXPECT_EQ(x.stats.events, 100u);
  EXPECT_EQ(x.stats.last_event_ps, 400u);
  EXPECT_EQ(x.stats.build_bytes, 5120u); // --memory in a split run
  ASSERT_EQ(x.figures.size(), 2u);
  EXPECT_EQ(x.figures[0].name(), "read.busy_ps");
  EXPECT_EQ(x.figures[0].pattern, "{}.busy_ps");
  EXPECT_EQ(x.figures[1].name(), "requests");
  EXPECT_EQ(x.figures[1].value, 3u);
  // The declared statistic and its qualifier cross processes (ADR-0038).
  EXPECT_EQ(x.figures[0].stat, 0x9e3779b9u);
  EXPECT_EQ(x.figures[0].qualifier, "read");
  EXPECT_EQ(x.figures[1].stat, 17u);
  EXPECT_EQ(x.figures[1].qualifier, "");
  EXPECT_EQ(x.records, a.records);
  EXPECT_EQ(x.ops, a.ops);
  EXPECT_EQ(x.pending, a.pending);
  EXPECT_EQ(d.nodes[1].node, 8u);
  EXPECT_TRUE(d.nodes[1].name.empty() && d.nodes[1].figures.empty() &&
              d.nodes[1].records.empty() && d.nodes[1].ops.empty());
}

// A figure names its statistic and qualifier by index into the result's
// tables: each distinct one crosses once, however many figures have it.
TEST(Protocol, ARunResultSendsEachStatisticAndQualifierOnce) {
  run_result r;
  node_summary a, b;
  a.node = 1;
  a.figures = {{"{}.busy_ps", 5, 77u, "read"}, {"{}.busy_ps", 6, 77u, "write"}};
  b.node = 2;
  b.figures = {{"{}.busy_ps", 7, 77u, "read"}, {"tiles_fed", 8, 78u, ""}};
  r.nodes = {a, b};
  const std::vector<char> bytes = encode_result(r);
  const auto words = aligned_words(bytes, "test");
  capnp::FlatArrayMessageReader reader(words);
  const auto w = reader.getRoot<wire::RunResult>();
  ASSERT_EQ(w.getStats().size(), 2u);
  EXPECT_EQ(w.getStats()[0].getId(), 77u);
  EXPECT_EQ(std::string(w.getStats()[0].getPattern().cStr()), "{}.busy_ps");
  EXPECT_EQ(w.getStats()[1].getId(), 78u);
  ASSERT_EQ(w.getQualifiers().size(), 3u); // read, write, ""
  EXPECT_EQ(w.getNodes()[1].getFigures()[0].getStat(), 0u);
  EXPECT_EQ(w.getNodes()[1].getFigures()[0].getQualifier(), 0u);
  const run_result d = decode_result(bytes);
  ASSERT_EQ(d.nodes.size(), 2u);
  EXPECT_EQ(d.nodes[0].figures[1].name(), "write.busy_ps");
  EXPECT_EQ(d.nodes[1].figures[0].name(), "read.busy_ps");
  EXPECT_EQ(d.nodes[1].figures[0].value, 7u);
  EXPECT_EQ(d.nodes[1].figures[1].name(), "tiles_fed");
  EXPECT_EQ(d.nodes[1].figures[1].stat, 78u);
  // Decoded figures of one statistic share one interned pattern.
  EXPECT_EQ(d.nodes[0].figures[0].pattern.data(), d.nodes[1].figures[0].pattern.data());
}

TEST(Protocol, AFigureOutsideTheResultsTablesIsAClearError) {
  capnp::MallocMessageBuilder msg;
  auto w = msg.initRoot<wire::RunResult>();
  auto s = w.initStats(1);
  s[0].setId(77);
  s[0].setPattern("{}.busy_ps");
  w.initQualifiers(1).set(0, "read");
  auto n = w.initNodes(1);
  n[0].setNode(9);
  auto f = n[0].initFigures(1);
  f[0].setStat(0);
  f[0].setQualifier(1); // one past the table
  const auto flat = capnp::messageToFlatArray(msg);
  const auto chars = flat.asChars();
  try {
    decode_result(std::vector<char>(chars.begin(), chars.end()));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "malformed run result: node 9 has a figure of statistic 0 and "
                           "qualifier 1, but the result lists 1 statistics and 1 qualifiers");
  }
}

TEST(Protocol, AHubSnapshotRoundTripsThroughCapnp) {
  hub_snapshot s{3, 99, true, SimTime{123456}, 5, 6, 7};
  const hub_snapshot d = decode_snapshot(encode_snapshot(s));
  EXPECT_EQ(d.shard, 3u);
  EXPECT_EQ(d.round, 99u);
  EXPECT_TRUE(d.stuck);
  EXPECT_EQ(d.local_min, SimTime{123456});
  EXPECT_EQ(d.sent, 5u);
  EXPECT_EQ(d.recv, 6u);
  EXPECT_EQ(d.windows, 7u);
}

TEST(Protocol, DamagedControlBytesAreAClearError) {
  try {
    decode_result({1, 2, 3});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "malformed run result: size is not a whole number of Cap'n Proto words");
  }
  try {
    decode_snapshot({});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "malformed hub snapshot: empty");
  }
}

TEST(Protocol, MalformedBytesAreAClearError) {
  std::vector<char> junk{1, 2, 3};
  try {
    decode_batch(junk);
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("malformed batch"), std::string::npos);
  }
}

TEST(Protocol, AnEmptyBatchIsAClearError) {
  try {
    decode_batch({});
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "malformed batch: empty");
  }
}

// 144 bytes found by fuzz_batch: a list of 2^24 empty structs costs nothing
// on the wire. The traversal limit is proportional to the input, so reading
// the list is refused instead of reserving 2.4 GB for it.
TEST(Protocol, ACraftedListCannotAskForMoreThanItsSize) {
  std::ifstream in(std::string(std::getenv("KB_SOURCE_DIR") ? std::getenv("KB_SOURCE_DIR") : ".") +
                     "/tests/fuzz/corpus/fuzz_batch/oom-reserve",
                   std::ios::binary);
  ASSERT_TRUE(in) << "missing tests/fuzz/corpus/fuzz_batch/oom-reserve";
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 144u);
  bool refused = false;
  try {
    (void)decode_batch(bytes);
  } catch (const kj::Exception& e) {
    refused = std::string(e.getDescription().cStr()).find("traversal limit") != std::string::npos;
  }
  EXPECT_TRUE(refused);
}

TEST(EventQueue, PopsByTimeThenSenderThenSequence) {
  event_queue q;
  auto push = [&](SimTime t, node_id src, uint64_t seq) {
    sim_event e;
    e.set_key(t, src, seq);
    return q.push(std::move(e)); // true: the new earliest
  };
  EXPECT_TRUE(push(ns(1), 2, 0));
  EXPECT_TRUE(push(ps(999), 9, 9));
  EXPECT_FALSE(push(ns(1), 1, 5));
  EXPECT_FALSE(push(ns(1), 2, 1));
  EXPECT_FALSE(push(ns(1), 1, 4));
  EXPECT_EQ(q.top_key(), (event_key{ps(999), 9, 9}));
  std::vector<event_key> order;
  while (!q.empty())
    order.push_back(q.pop().key());
  EXPECT_EQ(order, (std::vector<event_key>{{ps(999), 9, 9},
                                           {ns(1), 1, 4},
                                           {ns(1), 1, 5},
                                           {ns(1), 2, 0},
                                           {ns(1), 2, 1}}));
}

TEST(EventQueue, InterleavedPushesAndPopsComeOutInKeyOrder) {
  // The 4-ary heap against a sorted set: random keys with many equal times
  // and senders, pushes and pops interleaved as a shard loop does (each pop
  // may push later events), the queue growing to thousands and draining.
  event_queue q;
  std::set<event_key> ref;
  uint64_t x = 88172645463325252ull; // xorshift64
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  uint64_t seq = 0;
  SimTime now = SimTime::zero();
  auto push = [&](SimTime t) {
    sim_event e;
    e.set_key(t, static_cast<node_id>(next() % 7), seq++);
    e.arg0 = e.seq; // payload travels with its key
    ref.insert(e.key());
    q.push(std::move(e));
  };
  for (int i = 0; i < 3000; ++i)
    push(ps(next() % 50));
  for (int i = 0; i < 20000; ++i) {
    ASSERT_EQ(q.size(), ref.size());
    ASSERT_EQ(q.top_time(), ref.begin()->t);
    const sim_event e = q.pop();
    ASSERT_EQ(e.key(), *ref.begin());
    ASSERT_EQ(e.arg0, e.seq);
    ref.erase(ref.begin());
    now = e.t;
    const int fan = i < 10000 ? static_cast<int>(next() % 3) : 0; // grow, then drain
    for (int k = 0; k < fan && seq < 40000; ++k)
      push(now + ps(next() % 20));
    if (q.empty())
      break;
  }
  while (!q.empty()) {
    ASSERT_EQ(q.pop().key(), *ref.begin());
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(ref.empty());
}

} // namespace
} // namespace kb
