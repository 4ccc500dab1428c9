// The per-channel HBM (hbm_ctrl_channels_v1, docs/adr/0034-per-channel-hbm.md)
// driven by raw memory clients, every time derived by hand.
//
// The machine: 2 channels of 512 / 2 = 256 GB/s each, 100 ns, interleaved
// every 4 KiB (channel of offset o = (o / 4096) mod 2), so
// xfer(4 KiB) = 16 ns, xfer(2 KiB) = 8 ns, xfer(1 KiB) = 4 ns per channel.
// Client a reaches the HBM over a pure 1 ns wire, client b over a pure 2 ns
// wire (each way); their requests leave at 0, so a's arrives at 1, b's at 2.

#include "actors/hbm_ctrl_channels.hpp"
#include "messages/memory.capnp.h"
#include "runtime/address.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"
#include "tests/actors/harness.hpp"
#include "runtime/stat_decl.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace kb {
namespace {

constexpr stat_decl st_ack_ps = declare_stat("test", "ack_ps", stat_unit::ps, "");

using namespace kb::test;

const std::string hbm = "sip0.cube0.hbm";
const std::string client_a = "sip0.cube0.a.client";
const std::string client_b = "sip0.cube0.b.client";

uint64_t at(uint64_t offset) {
  return global_address{mem_space::hbm, 0, 0, 0, offset}.encode();
}

struct request {
  uint64_t offset;
  uint32_t length;
  bool write = false;
};

run_result run_clients(request a, std::optional<request> b) {
  test_machine sim;
  sim.add_node(hbm, make_node_factory<hbm_ctrl_channels>(hbm_ctrl_channels::config{
                      .bandwidth = Bandwidth::gbps(512),
                      .latency = ns(100),
                      .channels = 2,
                      .granule = 4096,
                      .fabric = sim.fabric(),
                      .deploy = nullptr}));
  sim.add_node(client_a, make_node_factory<mem_client>(at(a.offset), a.length, a.write));
  sim.add_link(client_a, hbm, ns(1));
  sim.add_link(hbm, client_a, ns(1));
  if (b) {
    sim.add_node(client_b, make_node_factory<mem_client>(at(b->offset), b->length, b->write));
    sim.add_link(client_b, hbm, ns(2));
    sim.add_link(hbm, client_b, ns(2));
  }
  return run(sim);
}

uint64_t head_of(const run_result& r, const std::string& c) {
  return figure_of(r, c, "reply_head_ps");
}
uint64_t tail_of(const run_result& r, const std::string& c) {
  return figure_of(r, c, "reply_tail_ps");
}

// a: 4 KiB at 0 (channel 0), b: 4 KiB at 4 KiB (channel 1). Each channel is
// idle: a s = 1, head 101, tail 1 + 16 + 100 = 117, back at 102 / 118;
// b s = 2, head 102, tail 118, back at 104 / 120.
TEST(HbmChannelsAdr, TwoRequestsOnTwoChannelsAreServedTogether) {
  const run_result r = run_clients({0, 4096}, request{4096, 4096});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(head_of(r, client_a), 102000u);
  EXPECT_EQ(tail_of(r, client_a), 118000u);
  EXPECT_EQ(head_of(r, client_b), 104000u);
  EXPECT_EQ(tail_of(r, client_b), 120000u);
  EXPECT_EQ(figure_of(r, hbm, "ch0.busy_ps"), 16000u);
  EXPECT_EQ(figure_of(r, hbm, "ch1.busy_ps"), 16000u);
  EXPECT_EQ(figure_of(r, hbm, "busy_ps"), 16000u);
  EXPECT_EQ(figure_of(r, hbm, "requests"), 2u);
}

// a: 4 KiB at 0, b: 4 KiB at 8 KiB, both on channel 0. a as above (102 /
// 118); b arrives at 2 but channel 0 is busy until 1 + 16 = 17: s = 17,
// head 117, tail 133, back at 119 / 135. Channel 1 stays idle.
TEST(HbmChannelsAdr, TwoRequestsOnOneChannelQueue) {
  const run_result r = run_clients({0, 4096}, request{8192, 4096});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(head_of(r, client_a), 102000u);
  EXPECT_EQ(tail_of(r, client_a), 118000u);
  EXPECT_EQ(head_of(r, client_b), 119000u);
  EXPECT_EQ(tail_of(r, client_b), 135000u);
  EXPECT_EQ(figure_of(r, hbm, "ch0.busy_ps"), 32000u);
  EXPECT_EQ(figure_of(r, hbm, "ch1.busy_ps"), 0u);
  EXPECT_EQ(figure_of(r, hbm, "busy_ps"), 16000u); // (32 + 0) / 2
}

// a: 6 KiB at 3 KiB spans three granules: [3 KiB, 4 KiB) on channel 0,
// [4 KiB, 8 KiB) on channel 1, [8 KiB, 9 KiB) on channel 0. Channel 0 serves
// its 2 KiB as one part (s = 1, 8 ns), channel 1 its 4 KiB (s = 1, 16 ns).
// One reply: head at the earliest part's head 1 + 100 = 101, tail at the
// latest part's tail max(1 + 8, 1 + 16) + 100 = 117; back at 102 / 118.
// (The aggregated hbm_ctrl_v1 would end it at 1 + xfer(6 KiB, 512) + 100 =
// 113: the channels are uneven.)
TEST(HbmChannelsAdr, ARequestOverThreeGranulesIsAnsweredWithItsLastPart) {
  const run_result r = run_clients({3072, 6144}, std::nullopt);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(head_of(r, client_a), 102000u);
  EXPECT_EQ(tail_of(r, client_a), 118000u);
  EXPECT_EQ(figure_of(r, hbm, "ch0.busy_ps"), 8000u);
  EXPECT_EQ(figure_of(r, hbm, "ch1.busy_ps"), 16000u);
  EXPECT_EQ(figure_of(r, hbm, "read_bytes"), 6144u);
  EXPECT_EQ(figure_of(r, hbm, "requests"), 1u);
}

// The same split request with b reading 1 KiB at 0 (channel 0), arriving
// at 2: channel 0 is free once a's 2 KiB part is done, at 1 + 8 = 9, not
// when a's reply ends (117): b s = 9, head 109, tail 9 + 4 + 100 = 113,
// back at 111 / 115. a is unchanged (102 / 118).
TEST(HbmChannelsAdr, EachChannelIsFreeWhenItsOwnPartIsDone) {
  const run_result r = run_clients({3072, 6144}, request{0, 1024});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(head_of(r, client_a), 102000u);
  EXPECT_EQ(tail_of(r, client_a), 118000u);
  EXPECT_EQ(head_of(r, client_b), 111000u);
  EXPECT_EQ(tail_of(r, client_b), 115000u);
  EXPECT_EQ(figure_of(r, hbm, "ch0.busy_ps"), 12000u);
}

// A write of the same 6 KiB at 3 KiB (head and tail at 1 over the pure
// wire): channel 0's part is busy until max(1 + 8, 1) = 9, acked at 109;
// channel 1's until 17, acked at 117. One ack, with the last part: 117,
// at the client 118.
TEST(HbmChannelsAdr, ASplitWriteIsAckedOnceWithItsLastPart) {
  const run_result r = run_clients({3072, 6144, true}, std::nullopt);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, client_a, "reply_head_ps"), std::vector<uint64_t>{118000u});
  EXPECT_EQ(tail_of(r, client_a), 118000u);
  EXPECT_EQ(figure_of(r, hbm, "write_bytes"), 6144u);
}

/// Sends at 0 a kernel's store of 64 B (one row, with its data) to offset 0
/// of the HBM; records the ack's arrival ("ack_ps").
class store_client : public node {
public:
  store_client(caf::actor_config& cfg, node_init init) : node(cfg, std::move(init)) {}

protected:
  void on_start() override {
    auto msg = std::make_unique<capnp::MallocMessageBuilder>(64);
    auto a = msg->initRoot<wire::MemAccess>();
    a.setRows(1);
    a.setRowBytes(64);
    a.setStride(64);
    a.setWho("store");
    a.initData(64);
    outgoing m;
    m.kind = kind_of(pipe_kind::mem_write);
    m.bytes = 64;
    m.arg0 = at(0);
    m.arg1 = mem_tag{id(), 64}.pack();
    m.body = message_body{std::move(msg)};
    send_on(0, std::move(m));
  }
  void on_message(sim_event& ev) override { ack_ = ev.t.ps(); }
  void on_finish() override { add_figure(st_ack_ps, ack_); }

private:
  uint64_t ack_ = 0;
};

// The channels report the data figures every memory does: a kernel's store
// of 64 B at 0 counts one data write. It is channel 0's part alone:
// xfer(64 B, 256 GB/s) = 250 ps, head and tail at 1 ns: free = 1.25, ack
// 101.25, at the client 102.25 ns.
TEST(HbmChannelsAdr, AKernelStoreCountsAsADataWrite) {
  test_machine sim;
  sim.add_node(hbm, make_node_factory<hbm_ctrl_channels>(hbm_ctrl_channels::config{
                      .bandwidth = Bandwidth::gbps(512),
                      .latency = ns(100),
                      .channels = 2,
                      .granule = 4096,
                      .fabric = sim.fabric(),
                      .deploy = nullptr}));
  sim.add_node(client_a, make_node_factory<store_client>());
  sim.add_link(client_a, hbm, ns(1));
  sim.add_link(hbm, client_a, ns(1));
  const run_result r = run(sim);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, client_a, "ack_ps"), 102250u);
  EXPECT_EQ(figure_of(r, hbm, "data_writes"), 1u);
  EXPECT_EQ(figure_of(r, hbm, "data_reads"), 0u);
  EXPECT_EQ(figure_of(r, hbm, "ch0.busy_ps"), 250u);
}

// The declared service (II prediction) is that of a request starting on a
// granule boundary, whose channel 0 holds the most: 6 KiB -> channel 0 gets
// 4 KiB (q = 0 rounds of 8 KiB, min(6 KiB, 4 KiB)). A read arriving at 1:
// head 101, tail 1 + 16 + 100 = 117 (the simulated 3 KiB-offset read above
// also ends at 117); a write with its tail at 5: ack max(17, 5) + 100 = 117;
// 16 KiB (two whole rounds): 8 KiB per channel, tail 1 + 32 + 100 = 133.
TEST(HbmChannelsAdr, TheDeclaredServiceIsTheBusiestPartOnAnIdleController) {
  const hbm_ctrl_channels::config c{.bandwidth = Bandwidth::gbps(512),
                                    .latency = ns(100),
                                    .channels = 2,
                                    .granule = 4096,
                                    .fabric = nullptr,
                                    .deploy = nullptr};
  const service_time_fn f = hbm_ctrl_channels::service_time(c, machine_context{});
  const crossing read = f({nullptr, 6144, false, {ns(1), ns(1)}});
  EXPECT_EQ(read.head, ns(101));
  EXPECT_EQ(read.tail, ns(117));
  const crossing write = f({nullptr, 6144, true, {ns(1), ns(5)}});
  EXPECT_EQ(write.head, ns(117));
  EXPECT_EQ(write.tail, ns(117));
  EXPECT_EQ(f({nullptr, 16384, false, {ns(1), ns(1)}}).tail, ns(133));
}

} // namespace
} // namespace kb
