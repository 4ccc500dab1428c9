// Out-of-order dispatch and tl.load_async (docs/adr/0025-out-of-order-
// dispatch.md), derived by hand on the default machine (DESIGN §4). The
// latencies of the pieces, from an idle PE, counted from the issue at t:
//   load of 64 B (1x16 f32): at PE_SCHEDULER t + 1, done t + 120.25
//     (kernel_timing_test.cpp); tile-done at PE_SCHEDULER t + 119.25;
//   load of 1 KiB (16x16 f32): done t + 124 (kernel_critical_path_test.cpp);
//   dot 1x16x16 f32: at PE_SCHEDULER t + 1, PE_GEMM t + 2 .. t + 82 (80
//     cycles), tile-done t + 83, done t + 84;
//   store of 64 B from TCM, started (its token sent) at s: the write
//     channel takes it at s + 1 and the ack is back at s + 117.25; tile-done
//     s + 118.25, done s + 119.25 (kernel_critical_path_test.cpp).
// Launch t0 = 6 ns.

#include "runtime/report/pe_commands.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

using test::bytes_of;
using test::kernel_outcome;
using test::hbm;
using test::launch_ps;
using test::run_kernel_on_pe0;

struct want {
  uint64_t id, issue, start, done;
  held_why held;
  uint64_t held_by;
};

void expect_rows(const kernel_outcome& r, const std::vector<want>& w) {
  const auto pes = commands_of(r.run.result, {"sip0.cube0.pe0"});
  ASSERT_EQ(pes.size(), 1u);
  const auto& rows = pes[0].rows;
  ASSERT_EQ(rows.size(), w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    SCOPED_TRACE(w[i].id);
    EXPECT_EQ(rows[i].id, w[i].id);
    EXPECT_EQ(rows[i].issue_ps, w[i].issue);
    EXPECT_EQ(rows[i].start_ps, w[i].start);
    EXPECT_EQ(rows[i].done_ps, w[i].done);
    EXPECT_EQ(static_cast<held_why>(rows[i].held), w[i].held);
    EXPECT_EQ(rows[i].held_by, w[i].held_by);
  }
}

uint64_t kernel_end(const kernel_outcome& r) {
  return test::figure(r.run, "sip0.cube0.pe0.pe_cpu", "kernel.end_ps");
}

// a = load 1x16 (cmd 1, done t0 + 120.25), b = load 16x16 (cmd 2, issued
// then, done T = t0 + 244.25). At T the kernel issues load_async of 64 B
// (cmd 3) and dot(a, b) (cmd 4): both reach PE_SCHEDULER at T + 1 and
// start there, on the DMA read queue and the GEMM queue. The dot is done at
// T + 84 while the load is in flight; the load at T + 120.25, when get()
// resumes the kernel, which then ends.
TEST(KernelDispatch, TwoIndependentCommandsOnDifferentEnginesOverlap) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor a = tl.load({hbm(0), dtype::f32}, {1, 16});
    const tl::tensor b = tl.load({hbm(4096), dtype::f32}, {16, 16});
    tl::future f = tl.load_async({hbm(8192), dtype::f32}, {1, 16});
    const tl::tensor c = tl.dot(a, b);
    const tl::tensor x = f.get();
    EXPECT_TRUE(x.ready());
  });
  ASSERT_EQ(r.run.error, "");
  const uint64_t T = launch_ps + 244250;
  expect_rows(r, {{1, launch_ps, launch_ps + 1000, launch_ps + 120250, held_why::none, 0},
                  {2, launch_ps + 120250, launch_ps + 121250, T, held_why::none, 0},
                  {3, T, T + 1000, T + 120250, held_why::none, 0},
                  {4, T, T + 1000, T + 84000, held_why::none, 0}});
  EXPECT_EQ(kernel_end(r), T + 120250);
}

// a = load 1x16 from hbm 0 (cmd 1, done T = t0 + 120.25). At T: store a to
// hbm 8192 (cmd 2) and load_async of hbm 8192 (cmd 3). The store starts at
// T + 1; its tile-done reaches PE_SCHEDULER at T + 1 + 118.25 = T + 119.25,
// done T + 120.25. The load shares its bytes: it waits for the store and
// starts at T + 119.25 (held: depends on 2), done 119.25 ns later, at
// T + 238.5 — and reads what the store wrote.
TEST(KernelDispatch, ALoadOfAStoresBytesWaitsForTheStore) {
  auto m = std::make_shared<memory_image>();
  std::vector<float> src(16);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = 3.0f + static_cast<float>(i);
  m->write(hbm(0), bytes_of(src));
  std::vector<float> seen;
  const auto r = run_kernel_on_pe0(
    [&](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(0), dtype::f32}, {1, 16});
      tl.store({hbm(8192), dtype::f32}, a);
      const tl::tensor x = tl.load_async({hbm(8192), dtype::f32}, {1, 16}).get();
      for (uint32_t c = 0; c < 16; ++c)
        seen.push_back(x.at(0, c));
    },
    m);
  ASSERT_EQ(r.run.error, "");
  const uint64_t T = launch_ps + 120250;
  expect_rows(r, {{1, launch_ps, launch_ps + 1000, T, held_why::none, 0},
                  {2, T, T + 1000, T + 120250, held_why::none, 0},
                  {3, T, T + 119250, T + 238500, held_why::depends, 2}});
  EXPECT_EQ(seen, src);
  EXPECT_EQ(kernel_end(r), T + 238500);
}

// Out of order: a store waiting for a dot's result does not hold back a
// later load. a, b as in the first test (b done at T = t0 + 244.25). At T:
// c = dot(a, b) (cmd 3, done T + 84, its tile-done at PE_SCHEDULER T + 83),
// store c (cmd 4: depends on 3, starts T + 83, done T + 83 + 119.25 =
// T + 202.25), load_async of 64 B elsewhere (cmd 5): its DMA read queue is
// free, so it starts at T + 1 (a FIFO feeder would have held it behind the
// store until T + 83) and is done at T + 120.25. The kernel gets it, then
// waits for the store: it ends at T + 202.25.
TEST(KernelDispatch, ALoadOvertakesAStoreThatWaitsForACompute) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor a = tl.load({hbm(0), dtype::f32}, {1, 16});
    const tl::tensor b = tl.load({hbm(4096), dtype::f32}, {16, 16});
    tl.store({hbm(8192), dtype::f32}, tl.dot(a, b));
    tl.load_async({hbm(12288), dtype::f32}, {1, 16}).get();
    tl.wait_all();
  });
  ASSERT_EQ(r.run.error, "");
  const uint64_t T = launch_ps + 244250;
  expect_rows(r, {{1, launch_ps, launch_ps + 1000, launch_ps + 120250, held_why::none, 0},
                  {2, launch_ps + 120250, launch_ps + 121250, T, held_why::none, 0},
                  {3, T, T + 1000, T + 84000, held_why::none, 0},
                  {4, T, T + 83000, T + 202250, held_why::depends, 3},
                  {5, T, T + 1000, T + 120250, held_why::none, 0}});
  EXPECT_EQ(kernel_end(r), T + 202250);
}

// Double buffering: b = load 16x16 (cmd 1, done T = t0 + 124); f0 =
// load_async a0 (cmd 2, issued T, done U = T + 120.25). At U, after
// f0.get(): load_async a1 (cmd 3), c0 = dot(a0, b) (cmd 4), store c0
// (cmd 5). The load of tile 1 runs U + 1 .. U + 120.25 while the dot of
// tile 0 runs U + 1 .. U + 84; store c0 starts at U + 83, done U + 202.25.
// At V = U + 120.25 (f1.get()): c1 = dot(a1, b) (cmd 6, done V + 84),
// store c1 (cmd 7, starts V + 83 — the write channel is free again since
// U + 200.25 — done V + 202.25).
TEST(KernelDispatch, LoadAsyncOfTheNextTileOverlapsTheDotOfThisOne) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    const tl::tensor b = tl.load({hbm(4096), dtype::f32}, {16, 16});
    tl::future next = tl.load_async({hbm(0), dtype::f32}, {1, 16});
    for (uint32_t t = 0; t < 2; ++t) {
      const tl::tensor a = next.get();
      if (t + 1 < 2)
        next = tl.load_async({hbm(64 * (t + 1)), dtype::f32}, {1, 16});
      tl.store({hbm(8192 + 64 * t), dtype::f32}, tl.dot(a, b));
    }
    tl.wait_all();
  });
  ASSERT_EQ(r.run.error, "");
  const uint64_t T = launch_ps + 124000, U = T + 120250, V = U + 120250;
  expect_rows(r, {{1, launch_ps, launch_ps + 1000, T, held_why::none, 0},
                  {2, T, T + 1000, U, held_why::none, 0},
                  {3, U, U + 1000, V, held_why::none, 0},
                  {4, U, U + 1000, U + 84000, held_why::none, 0},
                  {5, U, U + 83000, U + 202250, held_why::depends, 4},
                  {6, V, V + 1000, V + 84000, held_why::none, 0},
                  {7, V, V + 83000, V + 202250, held_why::depends, 6}});
  EXPECT_EQ(kernel_end(r), V + 202250);
  // Phase 2 replays both tiles' dots and stores.
  EXPECT_TRUE(r.replayed);
}

// Misuse: a default-constructed future.
TEST(KernelDispatch, GetOfAnEmptyFutureIsAKernelError) {
  const auto r = run_kernel_on_pe0([](tl::context& tl) {
    tl::future f;
    tl.get(f);
  });
  EXPECT_NE(r.run.error.find("get() of a tl::future that holds nothing"), std::string::npos)
    << r.run.error;
  EXPECT_NE(r.run.error.find("kernel k on sip0.cube0.pe0"), std::string::npos) << r.run.error;
}

} // namespace
} // namespace kb
