// Model tests of the PE pipeline with latencies derived by hand from the
// timing model (DESIGN §4): default topology, 1 GHz, wires 1 ns, queue
// depth 4, DMA setup 8 cycles, xbar 2 ns, HBM 512 GB/s / 100 ns, pe_dma<->xbar
// 256 GB/s, xbar<->hbm 512 GB/s, TCM 512 GB/s, MAC 32x32, SIMD 64 lanes.
//
// Every run starts with the kernel launch (DESIGN §4): the M_CPU sends it at
// 0, the m_cpu->noc link takes 1 ns, the NOC adds 4, the noc->pe_cpu link 1:
// PE_CPU starts its program and issues at launch_ns = 6. The derivations
// below count from that issue, as DESIGN's worked example does (which issues
// at 0); after_launch() and launch_ps add the launch to them.

#include "runtime/kernel/kernel_fiber.hpp"
#include "tests/pipeline/pipeline_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::after_launch;
using test::launch_ns;
using test::launch_ps;
using test::figure;
using test::gemm;
using test::math;
using test::run_pe0;
using test::spans_ns;
using test::stages_of;
using span = std::vector<std::pair<uint64_t, uint64_t>>;

const std::string pe = "sip0.cube0.pe0";

// DESIGN §4 worked example: 128x128x128 f16 GEMM, one tile, issued at 0.
//  PE_CPU issues at 0; the command reaches the scheduler at 1 (wire); the
//  plan takes no time; the feeder sends the token at 1; it reaches the DMA
//  read queue at 2 and the channel takes it at 2.
//  DMA_READ(A), 32 KiB: setup 2..10; the request (no payload) reaches the
//    xbar at 11, leaves it at 13 (+2), reaches HBM at 14. HBM starts at 14,
//    64 ns of transfer: data head leaves 114, tail 178. hbm->xbar (512 GB/s):
//    s = 114, tail = max(114 + 64, 178) = 178, arrives 115 / 179; the xbar
//    adds 2: 117 / 181; xbar->pe_dma (256 GB/s): s = 117, tail =
//    max(117 + 128, 181) = 245, arrives 118 / 246. The channel is busy until
//    the tail: A ends at 246 (= take + 244, the 32 KiB worked example).
//  DMA_READ(B) pays setup again: 246 + 244 = 490 (HBM idle by then).
//  FETCH (A + B = 64 KiB): token reaches the fetch lane at 491; request to
//    TCM arrives 492; TCM serves 64 KiB / 512 GB/s = 128 ns -> 620; reply
//    arrives 621.
//  GEMM: arrives 622; ceil(128/32)*ceil(128/32)*128 + 32 + 32 = 2112 cycles
//    -> 2734.
//  STORE (32 KiB): 2735; TCM 2736 + 64 = 2800; reply 2801.
//  DMA_WRITE (32 KiB): 2802; setup -> 2810; payload on the 256 GB/s link
//    2810..2938, head at xbar 2811 (+2 -> 2813), tail 2939 (+2 -> 2941);
//    xbar->hbm: s = 2813, tail = max(2813 + 64, 2941) = 2941: HBM head 2814,
//    tail 2942; HBM free = max(2814 + 64, 2942) = 2942, ack leaves 3042,
//    back 3043, +2 = 3045, arrives 3046.
//  Tile-done reaches the scheduler at 3047, command-done PE_CPU at 3048.
TEST(PipelineModel, SingleTileGemmMatchesTheWorkedExample) {
  auto r = run_pe0({gemm(128, 128, 128)});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure(r, pe + ".pe_cpu", "cmd1.issue_ps"), launch_ps);
  EXPECT_EQ(figure(r, pe + ".pe_cpu", "cmd1.done_ps"), launch_ps + 3048000u);
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::dma_read)), after_launch(span{{2, 246}, {246, 490}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::fetch)), after_launch(span{{491, 621}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::gemm)), after_launch(span{{622, 2734}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::store)), after_launch(span{{2735, 2801}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::dma_write)), after_launch(span{{2802, 3046}}));
}

TEST(PipelineModel, TheBuiltInDriverRunsWithoutAKernelStack) {
  // It issues its commands and waits for all on PE_CPU's own stack: with no
  // kernel stack to spare, the worked example runs as above.
  const scoped_stack_limit limit(0);
  auto r = run_pe0({gemm(128, 128, 128)});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure(r, pe + ".pe_cpu", "cmd1.done_ps"), launch_ps + 3048000u);
  EXPECT_EQ(figure(r, pe + ".pe_cpu", "kernel.finished"), 1u);
}

// A MATH tile, 128x128 f16 exp:
//  DMA_READ 32 KiB 2..246 (as above). FETCH of the 32 KiB input: arrives
//  247, TCM 248..312, reply 313. MATH: arrives 314; ceil(16384/64) * 4 + 4
//  = 1028 cycles -> 1342. STORE 32 KiB: 1343, TCM 1344..1408, reply 1409.
//  DMA_WRITE: 1410 + 244 = 1654. Tile-done 1655, PE_CPU 1656.
TEST(PipelineModel, MathTileMatchesTheTimingModel) {
  auto r = run_pe0({math(math_op::exp, 128, 128)});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::dma_read)), after_launch(span{{2, 246}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::fetch)), after_launch(span{{247, 313}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::math)), after_launch(span{{314, 1342}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::store)), after_launch(span{{1343, 1409}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::dma_write)), after_launch(span{{1410, 1654}}));
  EXPECT_EQ(figure(r, pe + ".pe_cpu", "cmd1.done_ps"), launch_ps + 1656000u);
}

// Two tiles along M (256x128x128): both tokens are fed at 1 and queue at the
// DMA read channel. Tile 0 runs as in the worked example. The channel takes
// tile 1 at 490 (right after forwarding tile 0): A read 490..734 (HBM
// request at 502, HBM idle; back-link FIFO not binding), B read 734..978 —
// while tile 0 is in GEMM (622..2734): overlap within a command. Tile 1's
// fetch 979..1109; GEMM takes it when it has forwarded tile 0: 2734..4846;
// store 4847..4913; DMA write 4914..5158 (the write of tile 0 ended at 3046,
// so links and HBM are idle). PE_CPU sees done at 5160.
TEST(PipelineModel, TileZeroComputesWhileTileOneIsInDma) {
  auto r = run_pe0({gemm(256, 128, 128)});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::dma_read)),
            after_launch(span{{2, 246}, {246, 490}, {490, 734}, {734, 978}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::fetch)), after_launch(span{{491, 621}, {979, 1109}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::gemm)), after_launch(span{{622, 2734}, {2734, 4846}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::store)), after_launch(span{{2735, 2801}, {4847, 4913}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::dma_write)), after_launch(span{{2802, 3046}, {4914, 5158}}));
  EXPECT_EQ(figure(r, pe + ".pe_cpu", "cmd1.done_ps"), launch_ps + 5160000u);
  // From the trace: tile 0's GEMM overlaps tile 1's DMA reads.
  auto g0 = stages_of(r, stage_type::gemm)[0];
  auto d1 = stages_of(r, stage_type::dma_read)[3];
  EXPECT_EQ(g0.tile, 0u);
  EXPECT_EQ(d1.tile, 1u);
  EXPECT_LT(g0.start, d1.end);
  EXPECT_LT(d1.start, g0.end);
}

std::vector<std::pair<uint64_t, uint64_t>> dispatches(const machine_run& r) {
  std::vector<std::pair<uint64_t, uint64_t>> out; // (command, tile)
  for (const auto& rec : r.records)
    if (rec.kind == trace_kind::sub_command_dispatched)
      out.emplace_back(rec.tag.context, rec.tag.item);
  return out;
}

// Five tiles (640x128x128) and a first-stage queue of depth 4: the feeder
// sends tiles 0..3 at 1 and blocks; the DMA read channel takes tile 0 at 2,
// the credit is back at 3, tile 4 leaves at 3: the feeder stalled exactly
// 2 ns. Nothing else stalls: the GEMM queue holds tiles 1..4 while tile 0 is
// computed, with the fetch lane's last credit.
TEST(PipelineModel, BackpressureBlocksOnlyTheFeeder) {
  auto r = run_pe0({gemm(640, 128, 128)});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure(r, pe + ".pe_scheduler", "feeder.stall_ps"), 2000u);
  std::vector<uint64_t> times;
  for (const auto& rec : r.records)
    if (rec.kind == trace_kind::sub_command_dispatched)
      times.push_back(rec.t.ps() / 1000);
  EXPECT_EQ(times, (std::vector<uint64_t>{launch_ns + 1, launch_ns + 1, launch_ns + 1,
                                          launch_ns + 1, launch_ns + 3}));
  for (const char* lane : {"pe_dma:read", "pe_dma:write", "pe_fetch_store:fetch",
                           "pe_fetch_store:store", "pe_gemm:gemm"}) {
    std::string l = lane;
    const auto colon = l.find(':');
    EXPECT_EQ(figure(r, pe + "." + l.substr(0, colon), l.substr(colon + 1) + ".stall_ps"), 0u)
      << lane;
  }
}

// Two commands of five tiles each, issued back to back: the feeder finishes
// command 1 (tile 4 leaves at 3, as above) before it starts command 2, whose
// tile 0 waits for the next credit: the DMA channel takes command 1's tile 1
// at 490, the credit is back at 491. No interleaving in the trace.
TEST(PipelineModel, FeedIsFifoAcrossCommands) {
  auto r = run_pe0({gemm(640, 128, 128), gemm(640, 128, 128)});
  ASSERT_EQ(r.error, "");
  auto d = dispatches(r);
  ASSERT_EQ(d.size(), 10u);
  for (size_t i = 0; i < 10; ++i)
    EXPECT_EQ(d[i], std::make_pair(uint64_t{i / 5 + 1}, uint64_t{i % 5})) << i;
  std::vector<uint64_t> times;
  for (const auto& rec : r.records)
    if (rec.kind == trace_kind::sub_command_dispatched && rec.tag.context == 2)
      times.push_back(rec.t.ps() / 1000);
  EXPECT_EQ(times.front(), launch_ns + 491u);
  // The DMA read channel serves command 1's tiles before command 2's.
  auto c1 = stages_of(r, stage_type::dma_read, 1);
  auto c2 = stages_of(r, stage_type::dma_read, 2);
  EXPECT_LE(c1.back().end, c2.front().start);
}

// A simple command (seed ADR-0014 D3.1): one 32 KiB DMA read. Issue at 0, the
// scheduler at 1, the read channel takes it at 2, the tail arrives at
// 2 + 244 = 246, tile-done at 247, PE_CPU at 248.
TEST(PipelineModel, SimpleDmaCommandTakesTheWorkedExampleTime) {
  stage s;
  s.type = stage_type::dma_read;
  s.unit = unit_role::dma;
  s.params.address = 4096;
  s.params.bytes = 32768;
  auto r = run_pe0({simple_command{s}});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::dma_read)), after_launch(span{{2, 246}}));
  EXPECT_EQ(figure(r, pe + ".pe_cpu", "cmd1.done_ps"), launch_ps + 248000u);
  EXPECT_EQ(figure(r, pe + ".pe_cpu", "cmd1.tiles"), 1u);
}

// Simple GEMM and MATH commands: one stage each, fed straight to the engine.
// GEMM 128^3: token at pe_gemm at 2, 2112 cycles -> 2114, tile-done 2115,
// PE_CPU 2116. MATH exp on 16384 elements: 2 + 1028 = 1030, PE_CPU 1032.
TEST(PipelineModel, SimpleGemmAndMathCommandsRunOnOneEngine) {
  stage g;
  g.type = stage_type::gemm;
  g.unit = unit_role::gemm;
  g.params.tm = g.params.tk = g.params.tn = 128;
  stage m;
  m.type = stage_type::math;
  m.unit = unit_role::math;
  m.params.elements = 128 * 128;
  m.params.op = math_op::exp;
  auto rg = run_pe0({simple_command{g}});
  ASSERT_EQ(rg.error, "");
  EXPECT_EQ(spans_ns(stages_of(rg, stage_type::gemm)), after_launch(span{{2, 2114}}));
  EXPECT_EQ(figure(rg, pe + ".pe_cpu", "cmd1.done_ps"), launch_ps + 2116000u);
  auto rm = run_pe0({simple_command{m}});
  ASSERT_EQ(rm.error, "");
  EXPECT_EQ(spans_ns(stages_of(rm, stage_type::math)), after_launch(span{{2, 1030}}));
  EXPECT_EQ(figure(rm, pe + ".pe_cpu", "cmd1.done_ps"), launch_ps + 1032000u);
}

TEST(PipelineModel, EpilogueOpWithoutScopeIsAClearError) {
  auto g = gemm(128, 128, 128);
  g.epilogue.push_back({math_op::relu, std::nullopt});
  auto r = run_pe0({g});
  EXPECT_NE(r.error.find("sip0.cube0.pe0.pe_scheduler at t=7000 ps: command 1: "
                         "generate_gemm_plan: epilogue op #0 'relu' has no scope"),
            std::string::npos)
    << r.error;
}

// Epilogue MATH stages on the last K tile before STORE: a relu over the
// 128x128 output, 256 chunks * 1 + 4 = 260 cycles after the GEMM (arrives
// 2735 -> 2995), then STORE 2996..3062, DMA_WRITE 3063..3307.
TEST(PipelineModel, OutputTileEpilogueRunsBetweenGemmAndStore) {
  auto g = gemm(128, 128, 128);
  g.epilogue.push_back({math_op::relu, epilogue_scope::output_tile});
  auto r = run_pe0({g});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::math)), after_launch(span{{2735, 2995}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::store)), after_launch(span{{2996, 3062}}));
  EXPECT_EQ(spans_ns(stages_of(r, stage_type::dma_write)), after_launch(span{{3063, 3307}}));
}

struct hop {
  std::string from, to;
  uint16_t kind;
  uint64_t sent_ns, arrival_ns;
  bool operator==(const hop&) const = default;
};

std::vector<hop> hops(const machine_run& r) {
  std::vector<hop> out;
  for (const auto& rec : r.records)
    if (rec.kind == trace_kind::message_hop)
      out.push_back({r.names[rec.node], r.names[rec.peer], rec.tag.what,
                     rec.t.ps() / 1000, rec.arrival.ps() / 1000});
  return out;
}

// Message hops of the worked example (kinds: 0 credit, 17 command, 16
// token, 22 mem_read, 18 tile_done, 19 command_done, 26 launch, 27
// kernel_done), after the two hops of the launch: the command leaves
// PE_CPU at 0 and arrives at 1; the token leaves the scheduler at 1 and
// arrives at 2; the DMA read channel takes it at 2, so its credit arrives
// back at 3; after the 8-cycle setup the read request leaves at 10 and
// reaches the xbar at 11; the last hops are the tile-done (3046 -> 3047)
// and the command-done (3047 -> 3048). Without --trace-hops: no hop records.
TEST(PipelineModel, MessageHopsAreTracedOnRequest) {
  auto r = run_pe0({gemm(128, 128, 128)}, 1, true);
  ASSERT_EQ(r.error, "");
  auto h = hops(r);
  ASSERT_GE(h.size(), 6u);
  const std::string p = pe + ".";
  const uint64_t l = launch_ns;
  const std::string c = "sip0.cube0.";
  EXPECT_EQ(h[0], (hop{c + "m_cpu", c + "noc", 26, 0, 1}));    // the launch
  EXPECT_EQ(h[1], (hop{c + "noc", p + "pe_cpu", 26, 1, 6})); // sent at 1, +4 +1
  EXPECT_EQ(h[2], (hop{p + "pe_cpu", p + "pe_scheduler", 17, l + 0, l + 1}));
  EXPECT_EQ(h[3], (hop{p + "pe_scheduler", p + "pe_dma", 16, l + 1, l + 2}));
  EXPECT_EQ(h[4], (hop{p + "pe_dma", p + "pe_scheduler", 0, l + 2, l + 3}));
  EXPECT_EQ(h[5], (hop{p + "pe_dma", "sip0.cube0.xbar", 22, l + 10, l + 11}));
  EXPECT_EQ(h[h.size() - 4], (hop{p + "pe_dma", p + "pe_scheduler", 18, l + 3046, l + 3047}));
  EXPECT_EQ(h[h.size() - 3], (hop{p + "pe_scheduler", p + "pe_cpu", 19, l + 3047, l + 3048}));
  // The completion goes back the same way: NOC at l + 3049, +4 +1.
  EXPECT_EQ(h[h.size() - 2], (hop{p + "pe_cpu", c + "noc", 27, l + 3048, l + 3049}));
  EXPECT_EQ(h.back(), (hop{c + "noc", c + "m_cpu", 27, l + 3049, l + 3054}));
  EXPECT_TRUE(hops(run_pe0({gemm(128, 128, 128)})).empty());
}

} // namespace
} // namespace kb
