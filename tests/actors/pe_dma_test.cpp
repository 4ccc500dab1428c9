// PE_DMA, XBAR and HBM_CTRL timing (DESIGN §4). Every time is derived by
// hand below. The feeder sends its tokens at 0 over a 1 ns wire, so the DMA
// channel takes the first token at t0 = 1 ns; a tile-done notice crosses
// another 1 ns wire back. xfer(32 KiB, 512 GB/s) = 64 ns, at 256 GB/s 128 ns.

#include "runtime/address.hpp"
#include "tests/actors/harness.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using namespace kb::test;

constexpr uint64_t hbm_a = 0x0;      // sip0.cube0 HBM
constexpr uint64_t hbm_b = 0x100000; // sip0.cube0 HBM

std::vector<uint64_t> ns_of(std::vector<uint64_t> v) {
  for (auto& x : v)
    x /= 1000;
  return v;
}

run_result run_one_pe(std::vector<tile_plan> tiles, size_t threads = 1) {
  test_machine sim;
  make_cube(sim, {.pes = 1, .tiles = {std::move(tiles)}});
  return run(sim, threads);
}

// t0 = 1: the read channel takes the token; setup 8 cycles -> 9.
// 9: mem_read (0 bytes) over pe_dma->xbar (1 ns) arrives 10; XBAR +2 -> 12;
//    xbar->hbm (1 ns) arrives 13.
// 13: HBM s = 13; data head leaves 113, tail 13+64+100 = 177.
//    hbm->xbar (512 GB/s): s = 113, tail max(113+64, 177) = 177 -> 114/178;
//    XBAR +2 -> 116/180; xbar->pe_dma (256 GB/s): s = 116,
//    tail max(116+128, 180) = 244 -> arrives head 117, tail 245 = t0 + 244.
// 245: stage over; tile-done arrives 246.
TEST(PeDma, LocalHbmRead32KiBEndsWhenTailArrivesAfter244ns) {
  run_result r = run_one_pe(
    {tile(0, {dma_stage(stage_type::dma_read, hbm_a, kib32)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"),
            std::vector<uint64_t>{246000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 244000u);
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.stages"), 1u);
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "write.busy_ps"), 0u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "busy_ps"), 64000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "read_bytes"), kib32);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "requests"), 1u);
}

// A as above ends at 245 (t0 + 244). B starts at once and pays setup again:
// 253 request leaves; xbar 254 -> 256; hbm 257 (free since 77): s = 257,
// head 357, tail 421; hbm->xbar s = 357, tail max(421, 421) -> 358/422;
// XBAR -> 360/424; xbar->pe_dma s = 360, tail max(360+128, 424) = 488
// -> tail arrives 489 = t0 + 488. Tile-done 490.
TEST(PeDma, BackToBackReadsEachPaySetup) {
  run_result r = run_one_pe({tile(0, {dma_stage(stage_type::dma_read, hbm_a, kib32),
                                      dma_stage(stage_type::dma_read, hbm_b, kib32)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"),
            std::vector<uint64_t>{490000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 488000u);
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.stages"), 2u);
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.bytes"), 2 * kib32);
}

// t0 = 1, setup -> 9: mem_write with 32 KiB on pe_dma->xbar (256 GB/s):
// s = 9, tail 9+128 = 137 -> arrives head 10, tail 138; XBAR -> 12/140;
// xbar->hbm (512 GB/s): s = 12, tail max(12+64, 140) = 140 -> 13/141.
// HBM: s = 13, free = max(13+64, 141) = 141 (held by the tail); ack leaves
// 141+100 = 241; hbm->xbar 242; XBAR 244; xbar->pe_dma 245 = t0 + 244.
// Tile-done 246.
TEST(PeDma, Write32KiBEndsWhenAckArrivesAfter244ns) {
  run_result r = run_one_pe(
    {tile(0, {dma_stage(stage_type::dma_write, hbm_a, kib32)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"),
            std::vector<uint64_t>{246000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "write.busy_ps"), 244000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "busy_ps"), 128000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "write_bytes"), kib32);
}

// A read and a write of one tile each run on their own channels at once:
// the read (tile 0) as in the first test ends at 245; the write (tile 1)
// request reaches the HBM at head 13 too but after the read (the feeder sent
// tile 0 first, so the read channel sent first: lower sequence number):
// write s = 77, free = max(77+64, 141) = 141, ack 241 -> 245 as alone.
TEST(PeDma, ReadAndWriteChannelsRunConcurrently) {
  run_result r = run_one_pe(
    {tile(0, {dma_stage(stage_type::dma_read, hbm_a, kib32)}),
     tile(1, {dma_stage(stage_type::dma_write, hbm_b, kib32)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"),
            (std::vector<uint64_t>{246000, 246000}));
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "busy_ps"), (64 + 64) * 1000u);
}

// SRAM of the own cube goes over the NOC (forward 4 ns; SRAM 512 GB/s,
// 20 ns; links 1 ns, 256 GB/s). t0 = 1, setup -> 9; pe_dma->noc arrives
// 10; NOC +4 -> 14; noc->sram arrives 15: s = 15, head 35, tail
// 15+64+20 = 99; sram->noc: s = 35, tail max(35+128, 99) = 163 -> 36/164;
// NOC +4 -> 40/168; noc->pe_dma: s = 40, tail max(40+128, 168) = 168 ->
// tail arrives 169 = t0 + 168. Tile-done 170.
TEST(PeDma, LocalSramReadGoesOverTheNoc) {
  const uint64_t sram = global_address{mem_space::sram, 0, 0, 0, 0x1000}.encode();
  run_result r =
    run_one_pe({tile(0, {dma_stage(stage_type::dma_read, sram, kib32)})});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(series_of(r, unit(0, "pe_scheduler"), "done_ps"),
            std::vector<uint64_t>{170000});
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 168000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.sram", "read_bytes"), kib32);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "requests"), 0u);
}

// Two PEs read 32 KiB each at the same time. Both requests reach the XBAR at
// 10; the key order (same time, sender id: pe0.pe_dma < pe1.pe_dma) makes
// the XBAR forward pe0's first, so both arrive at the HBM at 13, pe0 first.
// pe0: s = 13, free 77, head 113, tail 177 -> as alone, tail at 245.
// pe1: s = 77, free 141, head 177, tail 241; hbm->xbar: s = max(177, F 177),
//   tail max(177+64, 241) = 241 -> 178/242; XBAR -> 180/244; xbar->pe1
//   (its own link): s = 180, tail max(180+128, 244) = 308 -> tail 309.
// Tile-done: pe0 246, pe1 310.
run_result run_contention(size_t threads) {
  test_machine sim;
  make_cube(sim, {.pes = 2,
                  .tiles = {{tile(0, {dma_stage(stage_type::dma_read, hbm_a, kib32)})},
                            {tile(0, {dma_stage(stage_type::dma_read, hbm_b, kib32)})}}});
  return run(sim, threads);
}

TEST(PeDma, SimultaneousReadsFromTwoPesQueueAtHbmInKeyOrder) {
  run_result r = run_contention(1);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(ns_of(series_of(r, unit(0, "pe_scheduler"), "done_ps")),
            std::vector<uint64_t>{246});
  EXPECT_EQ(ns_of(series_of(r, unit(1, "pe_scheduler"), "done_ps")),
            std::vector<uint64_t>{310});
  EXPECT_EQ(figure_of(r, unit(0, "pe_dma"), "read.busy_ps"), 244000u);
  EXPECT_EQ(figure_of(r, unit(1, "pe_dma"), "read.busy_ps"), 308000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "busy_ps"), 128000u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.hbm", "requests"), 2u);
}

TEST(PeDma, ContentionResultsAreTheSameOnOneAndFourThreads) {
  const run_result one = run_contention(1);
  ASSERT_EQ(one.error, "");
  for (int rep = 0; rep < 3; ++rep) {
    for (size_t threads : {1u, 4u}) {
      const run_result r = run_contention(threads);
      ASSERT_EQ(r.error, "");
      ASSERT_EQ(r.nodes.size(), one.nodes.size());
      for (size_t i = 0; i < r.nodes.size(); ++i) {
        ASSERT_EQ(r.nodes[i].name, one.nodes[i].name);
        ASSERT_EQ(r.nodes[i].figures.size(), one.nodes[i].figures.size());
        for (size_t f = 0; f < r.nodes[i].figures.size(); ++f) {
          EXPECT_EQ(r.nodes[i].figures[f].name(), one.nodes[i].figures[f].name());
          EXPECT_EQ(r.nodes[i].figures[f].value, one.nodes[i].figures[f].value)
            << r.nodes[i].name << " " << r.nodes[i].figures[f].name()
            << " threads " << threads;
        }
      }
    }
  }
}

} // namespace
} // namespace kb
