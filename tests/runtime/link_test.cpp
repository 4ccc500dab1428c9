// The cut-through head/tail rule of a link (DESIGN §4), with the legs of the
// 32 KiB DMA read worked example.

#include "runtime/engine/link.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

out_link make_link(uint64_t gbps, SimTime latency) {
  link_spec_rt s;
  s.latency = latency;
  if (gbps > 0)
    s.bw = Bandwidth::gbps(gbps);
  return out_link{s};
}

TEST(Xfer, RoundsUpToWholePicoseconds) {
  EXPECT_EQ(xfer(32768, Bandwidth::gbps(256)), ns(128));
  EXPECT_EQ(xfer(32768, Bandwidth::gbps(512)), ns(64));
  EXPECT_EQ(xfer(1, Bandwidth::gbps(3)), ps(334)); // 1000/3 = 333.3 -> 334
  EXPECT_EQ(xfer(0, Bandwidth::gbps(512)), ps(0));
}

// Below 2^43 bytes xfer divides in 64 bits, above in 128: the same ceiling
// on both sides of the switch, worked out here in 128 bits.
TEST(Xfer, SixtyFourAndOneTwentyEightBitPathsAgree) {
  const auto ceil128 = [](uint64_t bytes, uint64_t mbps) {
    const uint128 num = static_cast<uint128>(bytes) * 1000000u;
    return static_cast<uint64_t>((num + mbps - 1) / mbps);
  };
  const uint64_t edge = uint64_t{1} << 43;
  for (const uint64_t mbps : {uint64_t{1}, uint64_t{3000}, uint64_t{512000}, (uint64_t{1} << 62) - 1})
    for (const uint64_t bytes : {edge - 1, edge, edge + 1, uint64_t{12345678901}})
      EXPECT_EQ(xfer(bytes, Bandwidth{mbps}).ps(), ceil128(bytes, mbps))
        << bytes << " B at " << mbps << " MB/s";
  EXPECT_EQ(xfer(~uint64_t{0}, Bandwidth{1}), SimTime::infinity());
}

// HBM -> XBAR (512 GB/s, 1 ns): data head leaves HBM at 112, tail at 176;
// s = 112, tail = max(112 + 64, 176) = 176: arrives head 113, tail 177.
TEST(Link, CutThroughKeepsALateTail) {
  out_link l = make_link(512, ns(1));
  crossing c = l.cross(ns(112), ns(176), 32768);
  EXPECT_EQ(c.head, ns(113));
  EXPECT_EQ(c.tail, ns(177));
  EXPECT_EQ(l.last_tail(), ns(176));
}

// XBAR -> PE_DMA (256 GB/s, 1 ns): head 115, tail 179 (after the 2 ns xbar);
// s = 115, tail = max(115 + 128, 179) = 243: arrives head 116, tail 244.
TEST(Link, SlowerLinkHoldsTheTail) {
  out_link l = make_link(256, ns(1));
  crossing c = l.cross(ns(115), ns(179), 32768);
  EXPECT_EQ(c.head, ns(116));
  EXPECT_EQ(c.tail, ns(244));
}

// A second message ready before the first one's tail left starts at F.
TEST(Link, BackToBackMessagesSerialise) {
  out_link l = make_link(256, ns(1));
  l.cross(ns(0), ns(0), 25600); // 100 ns on the wire: F = 100
  crossing c = l.cross(ns(10), ns(10), 2560); // s = 100, 10 ns: tail 110
  EXPECT_EQ(c.head, ns(101));
  EXPECT_EQ(c.tail, ns(111));
}

// A request without payload takes no wire time.
TEST(Link, EmptyMessageTakesOnlyLatency) {
  out_link l = make_link(256, ns(1));
  crossing c = l.cross(ns(8), ns(8), 0);
  EXPECT_EQ(c.head, ns(9));
  EXPECT_EQ(c.tail, ns(9));
}

// A link without bandwidth is a pure wire: no FIFO coupling.
TEST(Link, PureWireDoesNotSerialise) {
  out_link l = make_link(0, ps(1000));
  l.cross(ns(50), ns(50), 100);
  crossing c = l.cross(ns(10), ns(12), 100);
  EXPECT_EQ(c.head, ns(11));
  EXPECT_EQ(c.tail, ns(13));
}

TEST(Link, CreditsArePerReceivingQueue) {
  link_spec_rt s;
  s.latency = ns(1);
  s.depth = 2;
  out_link l{s};
  EXPECT_TRUE(l.has_credit(3));
  l.spend(3);
  l.spend(3);
  EXPECT_FALSE(l.has_credit(3));
  EXPECT_TRUE(l.has_credit(4));
  l.refund(3);
  EXPECT_TRUE(l.has_credit(3));
}

} // namespace
} // namespace kb
