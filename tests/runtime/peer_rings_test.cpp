// Peer rings (runtime/engine/peer_rings, docs/adr/0041-peer-rings.md): the
// shared-memory transport of a split run's peer batches on one host.
// Another process maps the segment through /proc/<pid>/fd/<fd>; here this
// process maps its own segment a second time the same way, so a write
// through one mapping is read through the other.

#include "runtime/engine/peer_rings.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace kb {
namespace {

std::vector<char> frame_of(uint32_t k) {
  // Sizes from 0 bytes to past the ring: every wrap and split is crossed.
  const size_t n = (k * 7919u) % 1000 + (k % 97 == 0 ? peer_rings::ring_bytes * 2 + 13 : 0);
  std::vector<char> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<char>((k * 131 + i) & 0xff);
  return v;
}

TEST(PeerRings, OnlyRunsOfTwoToMaxShardsGetASegment) {
  EXPECT_EQ(peer_rings::create(1), nullptr);
  EXPECT_EQ(peer_rings::create(peer_rings::max_shards + 1), nullptr);
  auto r = peer_rings::create(4);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->shards(), 4u);
  // "<boot id> <pid> <fd> <nonce>"
  std::istringstream in(r->advert());
  std::string boot, nonce;
  long pid = 0;
  int fd = -1;
  ASSERT_TRUE(in >> boot >> pid >> fd >> nonce) << r->advert();
  EXPECT_EQ(pid, static_cast<long>(::getpid()));
  EXPECT_EQ(nonce.size(), 32u);
}

TEST(PeerRings, AnotherMappingSeesWhatIsWrittenAndWhoJoined) {
  auto a = peer_rings::create(4);
  ASSERT_NE(a, nullptr);
  auto b = peer_rings::attach(a->advert(), 4);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->joined(1));
  a->join(0);
  b->join(1);
  EXPECT_TRUE(a->joined(1));
  EXPECT_TRUE(b->joined(0));
  EXPECT_FALSE(a->joined(2));

  const std::string text = "a batch";
  EXPECT_EQ(a->write_some(0, 2, text.data(), text.size()), text.size());
  EXPECT_TRUE(b->has_data(0, 2));
  EXPECT_FALSE(b->has_data(2, 0)); // each ordered pair has its own ring
  std::vector<char> got;
  EXPECT_EQ(b->read_all(0, 2, got), text.size());
  EXPECT_EQ(std::string(got.begin(), got.end()), text);
  EXPECT_FALSE(a->has_data(0, 2));

  // The ring holds ring_bytes: what does not fit waits for the reader.
  std::vector<char> big(peer_rings::ring_bytes + 100, 'x');
  EXPECT_EQ(a->write_some(1, 3, big.data(), big.size()), peer_rings::ring_bytes);
  EXPECT_EQ(a->write_some(1, 3, big.data(), 1), 0u);
  got.clear();
  EXPECT_EQ(b->read_all(1, 3, got), peer_rings::ring_bytes);
  EXPECT_EQ(a->write_some(1, 3, big.data(), 100), 100u);
}

TEST(PeerRings, AnotherRunsOrHostsSegmentIsRefused) {
  auto a = peer_rings::create(4);
  ASSERT_NE(a, nullptr);
  std::istringstream in(a->advert());
  std::string boot, nonce;
  long pid = 0;
  int fd = -1;
  ASSERT_TRUE(in >> boot >> pid >> fd >> nonce);
  auto advert = [&](const std::string& b, const std::string& n) {
    return b + " " + std::to_string(pid) + " " + std::to_string(fd) + " " + n;
  };
  EXPECT_NE(peer_rings::attach(advert(boot, nonce), 4), nullptr);
  std::string other = nonce;
  other[0] = other[0] == '0' ? '1' : '0';
  EXPECT_EQ(peer_rings::attach(advert(boot, other), 4), nullptr);           // another run
  EXPECT_EQ(peer_rings::attach(advert("another-host", nonce), 4), nullptr); // another host
  EXPECT_EQ(peer_rings::attach(advert(boot, nonce), 3), nullptr);           // another plan
  EXPECT_EQ(peer_rings::attach("", 4), nullptr); // rank 0 made none
  EXPECT_EQ(peer_rings::attach("garbage", 4), nullptr);
}

TEST(PeerRings, FramesArriveWholeAndInOrderWhateverTheirSize) {
  auto w = peer_rings::create(2);
  ASSERT_NE(w, nullptr);
  auto r = peer_rings::attach(w->advert(), 2);
  ASSERT_NE(r, nullptr);
  constexpr uint32_t frames = 3000;
  std::thread writer([&] {
    for (uint32_t k = 0; k < frames; ++k)
      w->send_frame(0, 1, frame_of(k), [] { std::this_thread::yield(); });
  });
  frame_reader reader;
  std::vector<char> f;
  uint32_t k = 0;
  bool same = true;
  while (k < frames) {
    reader.pull(*r, 0, 1);
    while (reader.next(f)) {
      same = same && f == frame_of(k);
      ++k;
    }
  }
  writer.join();
  EXPECT_TRUE(same);
  EXPECT_EQ(k, frames);
  reader.pull(*r, 0, 1);
  EXPECT_FALSE(reader.next(f));
}

TEST(PeerRings, AnIdleReaderIsRungOnceUntilItIdlesAgain) {
  auto a = peer_rings::create(2);
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->claim_doorbell(1)); // polling: nobody rings
  a->set_idle(1, true);
  EXPECT_TRUE(a->claim_doorbell(1));  // the first writer rings
  EXPECT_FALSE(a->claim_doorbell(1)); // the next does not: one doorbell is on its way
  a->set_idle(1, true);
  a->set_idle(1, false);
  EXPECT_FALSE(a->claim_doorbell(1));
  EXPECT_FALSE(a->claim_doorbell(0)); // per shard
}

} // namespace
} // namespace kb
