// Credits on the fabric links between forwarders (docs/adr/0033-fabric-
// credits.md): a full link holds back the forwarder that sends on it, and a
// forwarder whose held message has not left reads no more of that input,
// so its input queue fills and holds back its own sender. Every time is
// derived by hand below (and in the ADR); with credits off the same
// machines give today's unbounded times.
//
// The machine: a client in sip0.cube0 sends `n` reads of 512 B at t = 0 to
// the SRAM of the last cube, over a line of NOCs (sip0.cube0.noc,
// sip0.cube1.noc, ...). NOC +4 ns to head and tail; client <-> NOC0 and
// NOC <-> SRAM 1 ns; NOC <-> NOC as given, depth 1 each way; all links pure
// wires (no bandwidth). SRAM 512 GB/s, 20 ns: a 512 B read started at s
// has head s + 20 and tail s + 21, and the next starts at >= s + 1.

#include "actors/builtin_kinds.hpp"
#include "actors/noc.hpp"
#include "actors/sram.hpp"
#include "runtime/address.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/machine/machine.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"
#include "tests/actors/harness.hpp"
#include "runtime/stat_decl.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace kb {
namespace {

constexpr stat_decl st_reply_head_ns = declare_stat("test", "reply_head_ns", stat_unit::ps, "");
constexpr stat_decl st_reply_tail_ns = declare_stat("test", "reply_tail_ns", stat_unit::ps, "");

using namespace kb::test;
using ::testing::HasSubstr;

/// Sends `count` reads of `length` bytes of `address` at t = 0, back to
/// back, and keeps the head and tail time of every reply.
class burst_client : public node {
public:
  burst_client(caf::actor_config& cfg, node_init init, uint64_t address, uint32_t count)
    : node(cfg, std::move(init)), address_(address), count_(count) {}

protected:
  void on_start() override {
    for (uint32_t k = 0; k < count_; ++k) {
      outgoing m;
      m.kind = kind_of(pipe_kind::mem_read);
      m.arg0 = address_;
      m.arg1 = mem_tag{id(), 512}.pack();
      send_on(0, std::move(m));
    }
  }
  void on_message(sim_event& ev) override {
    head_.push_back(ev.t.ps() / 1000);
    tail_.push_back(ev.tail.ps() / 1000);
  }
  void on_finish() override {
    for (auto t : head_)
      add_figure(st_reply_head_ns, t);
    for (auto t : tail_)
      add_figure(st_reply_tail_ns, t);
  }

private:
  uint64_t address_;
  uint32_t count_;
  std::vector<uint64_t> head_, tail_;
};

std::string noc_of(size_t cube) { return "sip0.cube" + std::to_string(cube) + ".noc"; }

/// The line of NOCs joined by links of `hops` latencies (depth 1).
run_result run_line(const std::vector<SimTime>& hops, uint32_t count, bool credits,
                    size_t threads = 1) {
  const auto last = static_cast<uint32_t>(hops.size());
  const std::string memory = "sip0.cube" + std::to_string(last) + ".sram";
  const uint64_t address = global_address{mem_space::sram, 0, last, 0, 0x1000}.encode();
  test_machine sim;
  sim.add_node("sip0.cube0.client", make_node_factory<burst_client>(address, count));
  for (size_t c = 0; c <= last; ++c)
    sim.add_node(noc_of(c), make_node_factory<noc>(noc::config{
                              .forward_latency = ns(4), .fabric = sim.fabric(), .credits = credits}));
  sim.add_node(memory, make_node_factory<sram>(sram::config{.fabric = sim.fabric(), .deploy = nullptr}));
  sim.add_link("sip0.cube0.client", noc_of(0), ns(1));
  sim.add_link(noc_of(0), "sip0.cube0.client", ns(1));
  for (size_t c = 0; c < last; ++c) {
    sim.add_link(noc_of(c), noc_of(c + 1), hops[c], std::nullopt, 1);
    sim.add_link(noc_of(c + 1), noc_of(c), hops[c], std::nullopt, 1);
  }
  sim.add_link(noc_of(last), memory, ns(1));
  sim.add_link(memory, noc_of(last), ns(1));
  return sim.run(threads);
}

using ns_list = std::vector<uint64_t>;

// Unbounded (credits off): both reads reach NOC0 at 1, leave it at 5, NOC1
// at 15, leave at 19, SRAM at 20. SRAM: s = 20 -> 40/41; s = 21 -> 41/42.
// Back: +1 NOC1, +4, +10 NOC0, +4, +1 client = +20: 60/61 and 61/62.
TEST(FabricCredits, OffTwoReadsOverOneLinkAreUnbounded) {
  const run_result r = run_line({ns(10)}, 2, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, "sip0.cube0.client", "reply_head_ns"), (ns_list{60, 61}));
  EXPECT_EQ(series_of(r, "sip0.cube0.client", "reply_tail_ns"), (ns_list{61, 62}));
  EXPECT_EQ(figure_of(r, noc_of(0), "requests"), 2u);
}

// Depth 1 on NOC0 -> NOC1 (10 ns): read 1 takes the credit at 1 and reaches
// NOC1 at 15, which takes it (its next hop is the SRAM, no credits): the
// credit is back at NOC0 at 25. Read 2, held at NOC0 since 1, leaves at 25
// (not 5), reaches NOC1 at 35 (not 15) and the SRAM at 40 (not 20).
// SRAM: s = 20 -> 40/41; s = 40 -> 60/61. Reply 1: NOC1 41/42, leaves 45/46
// with NOC1 -> NOC0's credit, NOC0 55/56 (taken: credit back at NOC1 at
// 65), client 60/61. Reply 2: NOC1 at 61/62 would leave at 65, finds no
// credit, is held until it returns at 65 and leaves at 65/66 (no later):
// NOC0 75/76, client 80/81.
TEST(FabricCredits, AFullLinkHoldsBackTheSecondRead) {
  const run_result r = run_line({ns(10)}, 2, true);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, "sip0.cube0.client", "reply_head_ns"), (ns_list{60, 80}));
  EXPECT_EQ(series_of(r, "sip0.cube0.client", "reply_tail_ns"), (ns_list{61, 81}));
  EXPECT_EQ(figure_of(r, noc_of(0), "held_for_credit"), 1u); // read 2
  EXPECT_EQ(figure_of(r, noc_of(1), "held_for_credit"), 1u); // reply 2
  EXPECT_EQ(figure_of(r, "sip0.cube1.sram", "busy_ps"), 2000u);
}

// Unbounded, 4 reads over NOC0 -(10)- NOC1 -(30)- NOC2: all reach the SRAM
// at 1+4+10+4+30+4+1 = 54: s = 54..57 -> heads 74..77; back +54: 128..131.
TEST(FabricCredits, OffFourReadsOverTwoLinksAreUnbounded) {
  const run_result r = run_line({ns(10), ns(30)}, 4, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, "sip0.cube0.client", "reply_head_ns"), (ns_list{128, 129, 130, 131}));
  EXPECT_EQ(series_of(r, "sip0.cube0.client", "reply_tail_ns"), (ns_list{129, 130, 131, 132}));
}

// Depth 1 on both links; NOC1 -> NOC2 is the slow one (credit round trip
// 60 ns against 20). Requests (r1..r4 all at NOC0 at 1):
//   NOC0 1: r1 leaves (head 5), r2 r3 r4 held.   NOC1 15: takes r1 (credit
//   at NOC0 25), r1 leaves 19 -> NOC2 49.        NOC0 25: r2 leaves -> NOC1 35.
//   NOC1 35: takes r2 (credit NOC0 45), no credit to NOC2: held; NOC1 reads
//   no more from NOC0.                           NOC0 45: r3 leaves -> NOC1 55,
//   where it waits in the input queue, so r4 stays held at NOC0.
//   NOC2 49: takes r1 (credit NOC1 79) -> SRAM 54.
//   NOC1 79: r2 leaves -> NOC2 109; takes r3 (credit NOC0 89), held.
//   NOC0 89: r4 leaves (not 65, which an unbounded NOC1 would have allowed)
//   -> NOC1 99, waits.                           NOC2 109: r2 -> SRAM 114
//   (credit NOC1 139). NOC1 139: r3 leaves -> NOC2 169 -> SRAM 174; takes r4,
//   held. NOC1 199: r4 leaves -> NOC2 229 -> SRAM 234.
// SRAM: 54 -> 74/75, 114 -> 134/135, 174 -> 194/195, 234 -> 254/255.
// Replies (NOC2 +1 after the SRAM; NOC2 -> NOC1 credit back 30 ns after
// NOC1 takes the previous reply): r1 NOC2 75 leaves 79/80 -> NOC1 109/110,
// leaves 113/114 -> NOC0 123/124 -> client 128/129. r2 NOC2 135, held until
// 139 (NOC1 took r1's at 109) -> NOC1 169/170 -> NOC0 183/184 -> client
// 188/189. r3 NOC2 195, held until 199 -> NOC1 229/230 -> NOC0 243/244 ->
// client 248/249. r4 NOC2 255, held until 259 -> client 308/309. NOC1's
// replies always find NOC1 -> NOC0's credit back (133 < 169, 193 < 229,
// 253 < 289).
TEST(FabricCredits, AFullInputQueueHoldsBackTheSenderBeforeIt) {
  for (size_t threads : {1u, 2u}) {
    const run_result r = run_line({ns(10), ns(30)}, 4, true, threads);
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(series_of(r, "sip0.cube0.client", "reply_head_ns"), (ns_list{128, 188, 248, 308}));
    EXPECT_EQ(series_of(r, "sip0.cube0.client", "reply_tail_ns"), (ns_list{129, 189, 249, 309}));
    EXPECT_EQ(figure_of(r, noc_of(0), "held_for_credit"), 3u); // r2 r3 r4
    EXPECT_EQ(figure_of(r, noc_of(1), "held_for_credit"), 3u); // r2 r3 r4
    EXPECT_EQ(figure_of(r, noc_of(2), "held_for_credit"), 3u); // replies 2 3 4
  }
}

// -- the switch ---------------------------------------------------------------

/// config/topology.yaml with `fabric_credits: value` (empty: not given).
topology_spec load(const std::string& value) {
  const std::string dir = source_dir() + "/config/";
  YAML::Node doc = load_topology_document(dir + "topology.yaml");
  if (!value.empty())
    doc["fabric_credits"] = YAML::Load(value);
  return parse_topology(doc, "topology.yaml", builtin_kinds().catalog());
}

TEST(FabricCredits, TheSwitchIsOffByDefault) {
  EXPECT_FALSE(load("").fabric_credits);
  EXPECT_TRUE(load("true").fabric_credits);
  EXPECT_FALSE(load("false").fabric_credits);
}

TEST(FabricCredits, ABadValueIsRefusedNamingTheKey) {
  try {
    load("maybe");
    FAIL() << "expected a config error";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("fabric_credits"));
  }
}

// Credits go back over the link the message came on: with the switch on, a
// forwarder -> forwarder link needs a link back (ADR-0033 "Lookahead").
TEST(FabricCredits, AOneWayLinkBetweenForwardersIsABuildError) {
  const std::string dir = source_dir() + "/config/";
  YAML::Node doc = load_topology_document(dir + "scale/2sip_2cube_4pe.yaml");
  doc["fabric_credits"] = true;
  doc["sip"]["links"][0]["bidirectional"] = false; // cube0.noc -> cube1.noc only
  const topology_spec topo = parse_topology(
    doc, "2sip_2cube_4pe.yaml", builtin_kinds().catalog());
  simulation sim;
  try {
    build_machine(topo, builtin_kinds(), context_of(topo), sim);
    FAIL() << "expected a build error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("fabric_credits: the link sip0.cube0.noc -> sip0.cube1.noc "
                                    "needs a link back"));
  }
}

} // namespace
} // namespace kb
