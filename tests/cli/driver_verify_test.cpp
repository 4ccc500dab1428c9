// `kernbench run --verify` on the built-in driver (issue 12): the driver is a
// kernel whose composite commands carry real bytes. Without options `run`
// verifies the default GEMM; the dumped tensors hold A x B with the
// epilogue ops (pinned operands read in place), recomputed here with plain
// loops; the per-op digests of the replay's debug mode do not depend on
// --threads; what the replay cannot follow is refused by name.

#include "runtime/data/npy.hpp"
#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace kb {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using test::run_kernbench;
using test::slurp;

TEST(DriverVerify, RunWithoutOptionsVerifiesTheDefaultGemm) {
  const auto r = run_kernbench("run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // 1024 x 1024 x 1024 in 128^3 tiles: 512 tiles of 3 data ops (DMA A, DMA
  // B, GEMM), and STORE and DMA_WRITE on the 64 last-K tiles.
  EXPECT_THAT(r.out, HasSubstr("\ndata\n  op log          1664 records\n"));
  EXPECT_THAT(r.out, HasSubstr("  verify          c: all 1048576 elements match (f16,"));
  EXPECT_THAT(r.out, HasSubstr("\nverdict: PASS\n"));
  // Any option is a run as asked: no data unless --verify says so.
  const auto quiet = run_kernbench("run --quiet");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.out, Not(HasSubstr("verdict")));
  EXPECT_THAT(quiet.out, Not(HasSubstr("\ndata\n")));
}

std::vector<float> values(const std::string& path) { return to_f32(read_npy(path)); }

TEST(DriverVerify, TheDumpedResultIsTheProductWithItsEpilogueOps) {
  const std::string dir = test::temp_dir("driver_dump");
  constexpr uint32_t M = 48, K = 96, N = 40, TK = 32;
  const auto r = run_kernbench(
    "run --M 48 --K 96 --N 40 --tile 16 32 16 --dtype f32 --a-pinned --epilogue relu:k_tile "
    "--epilogue bias:output_tile --epilogue scale:output_tile:0.5 --epilogue mul:output_tile "
    "--verify --quiet --dump-tensors " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify          c: all 1920 elements match (f32,"));
  const auto a = values(dir + "/a.npy"), b = values(dir + "/b.npy"), c = values(dir + "/c.npy");
  const auto bias = values(dir + "/bias1.npy"), mul = values(dir + "/mul3.npy");
  ASSERT_EQ(a.size(), M * K);
  ASSERT_EQ(b.size(), K * N);
  ASSERT_EQ(bias.size(), N);
  ASSERT_EQ(mul.size(), M * N);
  ASSERT_EQ(c.size(), M * N);
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      double acc = 0;
      for (uint32_t k0 = 0; k0 < K; k0 += TK) {
        for (uint32_t k = k0; k < k0 + TK; ++k)
          acc += double{a[i * K + k]} * b[k * N + j];
        acc = std::max(acc, 0.0); // relu after every K tile
      }
      const double want = (acc + bias[j]) * 0.5 * mul[i * N + j];
      ASSERT_NEAR(c[i * N + j], want, 1e-4 + 1e-5 * std::abs(want)) << "c[" << i << "," << j << "]";
    }
}

TEST(DriverVerify, OpDigestsAreTheSameForAnyThreadCount) {
  const std::string dir = test::temp_dir("driver_digests");
  const std::string run = "run --topology " + test::source_dir() +
                          "/config/scale/1sip_4cube_64pe.yaml --pes 8 "
                          "--placement remote-cube --M 64 --K 128 --N 64 --tile 32 32 32 "
                          "--epilogue add:k_tile --quiet --op-digests ";
  const auto one = run_kernbench(run + dir + "/t1.txt --threads 1");
  const auto two = run_kernbench(run + dir + "/t2.txt --threads 2");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const std::string d1 = slurp(dir + "/t1.txt");
  // 8 PEs x 16 tiles x (DMA A, DMA B, GEMM, add) + 8 x 4 output tiles x
  // (STORE, DMA_WRITE): one line per op.
  EXPECT_EQ(std::count(d1.begin(), d1.end(), '\n'), 8 * 16 * 4 + 8 * 4 * 2);
  EXPECT_THAT(d1, HasSubstr(" sip0.cube0.pe0.pe_gemm gemm_f16 out=0x"));
  EXPECT_THAT(d1, HasSubstr(" nonfinite=0\n"));
  EXPECT_EQ(d1, slurp(dir + "/t2.txt"));
}

TEST(DriverVerify, ASplitRunWritesTheSameOpLogAndPasses) {
  // 2 SIPs x 2 cubes, every PE reading B from the other cube over UCIe: the
  // processes other than rank 0 ship their nodes' op records with their
  // summaries; rank 0 writes one log in op_key order, the same bytes as one
  // process's (1, 2 and 4 processes, and 2 processes x 2 threads), and the
  // replay of it checks every PE's C.
  const std::string dir = test::temp_dir("driver_split_oplog");
  const std::string base = "run --topology " + test::source_dir() +
                           "/config/scale/2sip_2cube_4pe.yaml --pes all --M 96 --K 160 "
                           "--N 64 --tile 32 32 32 --placement remote-cube --quiet --verify";
  const auto one = run_kernbench(base + " --oplog " + dir + "/one.oplog");
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  // 16 PEs x (3 x 5 x 2 tiles x 3 ops + 3 x 2 output tiles x 2 ops)
  EXPECT_THAT(one.out, HasSubstr("  op log          1632 records"));
  const std::string log = slurp(dir + "/one.oplog");
  ASSERT_FALSE(log.empty());
  for (const std::string split : {"--procs 2", "--procs 4", "--procs 2 --threads 2"}) {
    const auto r = run_kernbench(base + " " + split + " --oplog " + dir + "/split.oplog");
    ASSERT_EQ(r.exit_code, 0) << split << "\n" << r.out << r.err;
    EXPECT_EQ(slurp(dir + "/split.oplog"), log) << split;
    EXPECT_THAT(r.out, HasSubstr("  verify          sip1.cube1.pe3.c: all 6144 elements match"))
      << split;
    EXPECT_THAT(r.out, HasSubstr("\nverdict: PASS\n")) << split;
  }
}

TEST(DriverVerify, WhatTheReplayCannotFollowIsRefusedByName) {
  const auto math = run_kernbench("run --op math --op-kind add --M 64 --N 64 --tile 32 32 --verify");
  EXPECT_EQ(math.exit_code, 2);
  EXPECT_EQ(math.err, "kernbench: error: --verify: a MATH command of 'add' names no second "
                      "operand: its data cannot be replayed (relu, exp, rsqrt and scale can)\n");
  const auto value = run_kernbench("run --epilogue relu:output_tile:2 --verify");
  EXPECT_EQ(value.exit_code, 2);
  EXPECT_EQ(value.err, "kernbench: error: --epilogue 'relu:output_tile:2': only scale takes a "
                       "value (scale:SCOPE:VALUE)\n");
  const auto nan = run_kernbench("run --epilogue scale:output_tile:nan --verify");
  EXPECT_EQ(nan.exit_code, 2);
  EXPECT_EQ(nan.err, "kernbench: error: --epilogue 'scale:output_tile:nan': the value 'nan' is "
                     "not a finite number\n");
}

} // namespace
} // namespace kb
