// The shared memory server arithmetic (HBM_CTRL and SRAM) and the NOC ->
// SRAM path, derived by hand (DESIGN §4).

#include "actors/detail/memory_server.hpp"
#include "actors/noc.hpp"
#include "actors/sram.hpp"
#include "runtime/address.hpp"
#include "tests/actors/harness.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using detail::memory_server;
using detail::memory_timing;
using namespace kb::test;

// 512 GB/s, 100 ns: xfer(32 KiB) = 64 ns.
TEST(MemoryServer, ReadsQueueFifoAndAddLatency) {
  memory_server m(memory_timing{Bandwidth::gbps(512), ns(100)});
  auto a = m.read(ns(13), 32768); // s = 13: head 113, tail 177
  EXPECT_EQ(a.head, ns(113));
  EXPECT_EQ(a.tail, ns(177));
  auto b = m.read(ns(13), 32768); // s = 77 (free): head 177, tail 241
  EXPECT_EQ(b.head, ns(177));
  EXPECT_EQ(b.tail, ns(241));
  EXPECT_EQ(m.free_at(), ns(141));
  auto c = m.read(ns(500), 1); // idle again: s = 500, xfer(1 B) = 2 ps
  EXPECT_EQ(c.head, ns(600));
  EXPECT_EQ(c.tail, ns(600) + ps(2));
  EXPECT_EQ(m.busy_ps(), 128000u + 2u);
  EXPECT_EQ(m.requests(), 3u);
  EXPECT_EQ(m.read_bytes(), 65537u);
}

// A write starts at its head but is busy until its tail has arrived:
// head 13, tail 141: s = 13, free = max(77, 141) = 141, ack 241. A write
// whose tail arrives early is held by the bandwidth instead: head 300,
// tail 310: free = max(364, 310) = 364, ack 464.
TEST(MemoryServer, WriteIsBusyUntilItsTailAndAcksAfterLatency) {
  memory_server m(memory_timing{Bandwidth::gbps(512), ns(100)});
  auto a = m.write(ns(13), ns(141), 32768);
  EXPECT_EQ(a.head, ns(241));
  EXPECT_EQ(a.tail, ns(241));
  EXPECT_EQ(m.free_at(), ns(141));
  auto b = m.write(ns(300), ns(310), 32768);
  EXPECT_EQ(b.head, ns(464));
  EXPECT_EQ(m.busy_ps(), (128 + 64) * 1000u);
  EXPECT_EQ(m.write_bytes(), 65536u);
}

// A client reads/writes 32 KiB of sip0.cube0's SRAM through the NOC
// (defaults: forward 4 ns; SRAM 512 GB/s, 20 ns; all links 1 ns, 256 GB/s).
run_result run_sram(bool write) {
  const uint64_t addr =
    global_address{mem_space::sram, 0, 0, 0, 0x1000}.encode();
  test_machine sim;
  sim.add_node("sip0.cube0.client",
               make_node_factory<mem_client>(addr, 32768u, write));
  sim.add_node("sip0.cube0.noc", make_node_factory<noc>(noc::config{.fabric = sim.fabric()}));
  sim.add_node("sip0.cube0.sram", make_node_factory<sram>(sram::config{.fabric = sim.fabric(), .deploy = nullptr}));
  for (auto [a, b] : {std::pair{"client", "noc"}, std::pair{"noc", "sram"}}) {
    const std::string x = std::string("sip0.cube0.") + a;
    const std::string y = std::string("sip0.cube0.") + b;
    sim.add_link(x, y, ns(1), Bandwidth::gbps(256), 4);
    sim.add_link(y, x, ns(1), Bandwidth::gbps(256), 4);
  }
  return run(sim);
}

// Read: request arrives at the NOC 1, +4 -> 5, SRAM 6: s = 6, head 26,
// tail 6+64+20 = 90; sram->noc (256 GB/s): s = 26, tail max(26+128, 90) =
// 154 -> 27/155; NOC +4 -> 31/159; noc->client: s = 31, tail max(159, 159)
// -> head 32, tail 160.
TEST(NocSram, Read32KiBThroughTheNoc) {
  run_result r = run_sram(false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, "sip0.cube0.client", "reply_head_ps"), 32000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.client", "reply_tail_ps"), 160000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.sram", "read_bytes"), 32768u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.noc", "requests"), 1u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.noc", "replies"), 1u);
}

// Write: payload 0..128 on client->noc -> 1/129; NOC -> 5/133; noc->sram:
// s = 5, tail max(133, 133) -> 6/134; SRAM s = 6, free = max(70, 134) = 134,
// ack 154; -> NOC 155, +4 -> 159, -> client 160.
TEST(NocSram, Write32KiBThroughTheNoc) {
  run_result r = run_sram(true);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, "sip0.cube0.client", "reply_head_ps"), 160000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.client", "reply_tail_ps"), 160000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.sram", "busy_ps"), 128000u);
}

} // namespace
} // namespace kb
