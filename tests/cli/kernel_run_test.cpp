// `kernbench run --kernel NAME` (issue 12): the shipped gemm kernel verifies
// on aligned and ragged shapes in f16, bf16 and f32; bad kernels and
// arguments exit 2 naming them; --dump-tensors writes the deployed inputs
// (checked by replaying --oplog on them) and a product within tolerance;
// the op log and dumps do not depend on --threads.

#include "runtime/data/executor.hpp"
#include "runtime/data/npy.hpp"
#include "runtime/data/oplog_stream.hpp"
#include "runtime/data/verify.hpp"
#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

using test::slurp;

struct shape {
  uint32_t m, k, n, tile, block_m;
};

std::string gemm_args(const shape& s, const std::string& type) {
  return "--arg M=" + std::to_string(s.m) + " --arg K=" + std::to_string(s.k) +
         " --arg N=" + std::to_string(s.n) + " --arg tile=" + std::to_string(s.tile) +
         " --arg block_m=" + std::to_string(s.block_m) + " --arg dtype=" + type +
         " --arg out_dtype=" + type;
}

class KernelRunVerify : public ::testing::TestWithParam<std::tuple<shape, std::string>> {};

TEST_P(KernelRunVerify, TheGemmKernelPasses) {
  const auto& [s, type] = GetParam();
  const auto r = run_kernbench("run --kernel gemm --verify --pes all " + gemm_args(s, type));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify          c: all " + std::to_string(s.m * s.n) +
                               " elements match (" + type + ","));
  EXPECT_THAT(r.out, HasSubstr("\nverdict: PASS\n"));
  // Programs = ceil(M / block_m), one PE each (at most 4).
  const uint32_t programs = (s.m + s.block_m - 1) / s.block_m;
  EXPECT_THAT(r.out, HasSubstr("kernel gemm on " + std::to_string(std::min(programs, 4u)) +
                               " PE(s)"));
  EXPECT_THAT(r.out, HasSubstr("commands        " + std::to_string(programs) + " issued"));
}

INSTANTIATE_TEST_SUITE_P(
  Shapes, KernelRunVerify,
  ::testing::Combine(::testing::Values(shape{64, 64, 64, 32, 64},  // one tile per program
                                       shape{128, 96, 64, 32, 64}, // several K tiles
                                       shape{100, 70, 90, 32, 48}, // ragged M, K, N and blocks
                                       shape{33, 17, 65, 16, 8}),  // 5 programs on 4 PEs
                     ::testing::Values("f16", "bf16", "f32")),
  [](const auto& info) {
    const shape& s = std::get<0>(info.param);
    return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + "_" +
           std::get<1>(info.param);
  });

TEST(KernelRun, AnUnknownKernelIsRefusedNamingTheKnownOnes) {
  const auto r = run_kernbench("run --kernel gemv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--kernel gemv: no such kernel (kernbench ships eltwise_chain, "
                               "flash_attention, gemm, gemm_bias_relu, gemm_pipelined, "
                               "gemm_splitk, layernorm, softmax; no --kernel-lib adds more)"));
}

TEST(KernelRun, AnUnknownArgumentIsRefusedNamingTheKnownOnes) {
  const auto r = run_kernbench("run --kernel gemm --arg L=3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--arg L: kernel gemm takes no such argument (M, K, N, block_m, "
                               "tile, dtype, out_dtype)"));
}

TEST(KernelRun, BadArgumentValuesAreRefused) {
  auto r = run_kernbench("run --kernel gemm --arg M=12x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("--arg M=12x: expected a whole number from 0 to 4294967295 (kernel gemm)"));
  r = run_kernbench("run --kernel gemm --arg M=-1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("--arg M=-1: expected a whole number from 0 to 4294967295 (kernel gemm)"));
  r = run_kernbench("run --kernel gemm --arg dtype=f64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--arg dtype=f64: kernel gemm takes f16, bf16, f32 or i8 for dtype"));
  r = run_kernbench("run --kernel gemm --arg tile=0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("kernel gemm needs M, K, N, block_m and tile above 0"));
}

TEST(KernelRun, MalformedArgumentsAreRefused) {
  auto r = run_kernbench("run --kernel gemm --arg M");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--arg M: expected KEY=VALUE"));
  r = run_kernbench("run --kernel gemm --arg M=64 --arg M=32");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--arg M=32: M is given twice"));
}

TEST(KernelRun, WithoutVerifyThereIsNoVerdict) {
  const auto r = run_kernbench("run --kernel gemm --arg M=64 --arg K=64 --arg N=64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("verdict")));
  EXPECT_THAT(r.out, Not(HasSubstr("phase 2")));
}

/// The address of tensor `name` as the run reports it ("tensor a at 0x0 (f16)").
uint64_t address_in(const std::string& out, const std::string& name) {
  std::smatch m;
  const std::regex re("tensor " + name + " +[0-9]+x[0-9]+ [a-z0-9]+ at 0x([0-9a-f]+)");
  if (!std::regex_search(out, m, re))
    throw std::runtime_error("no address of " + name + " in: " + out);
  return std::stoull(m[1].str(), nullptr, 16);
}

/// Elements of `a` as f32, row-major.
std::vector<float> values(const npy_array& a) { return to_f32(a); }

TEST(KernelRun, DumpedTensorsAreTheDeployedInputsAndTheProduct) {
  // Ragged: M = 50 (block_m 32: 2 programs), K = 40, N = 24, tile 16; f16 in,
  // f32 out.
  const uint32_t M = 50, K = 40, N = 24;
  const std::string dir = test::temp_dir("dump");
  const auto r = run_kernbench("run --kernel gemm --pes all --seed 7 --arg M=50 --arg K=40 "
                               "--arg N=24 --arg tile=16 --arg block_m=32 --arg dtype=f16 "
                               "--dump-tensors " + dir + " --oplog " + dir + "/ops.log");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const npy_array a = read_npy(dir + "/a.npy"), b = read_npy(dir + "/b.npy"),
                  c = read_npy(dir + "/c.npy");
  EXPECT_EQ(a.type, dtype::f16);
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{M, K}));
  EXPECT_EQ(b.type, dtype::f16);
  EXPECT_EQ(b.shape, (std::vector<uint64_t>{K, N}));
  EXPECT_EQ(c.type, dtype::f32);
  EXPECT_EQ(c.shape, (std::vector<uint64_t>{M, N}));
  // Inputs are random in [-1, 1]; not all alike.
  const auto av = values(a), bv = values(b), cv = values(c);
  for (float x : av)
    ASSERT_TRUE(x >= -1 && x <= 1) << x;
  EXPECT_NE(av[0], av[1]);

  // The dumped inputs are exactly what was deployed: replaying the run's op
  // log on an image holding them gives the dumped C byte for byte.
  memory_image image;
  image.write(address_in(r.out, "a"), a.data);
  image.write(address_in(r.out, "b"), b.data);
  replay_options ro;
  ro.workers = 1;
  replay(dir + "/ops.log", image, ro);
  EXPECT_EQ(image.read(address_in(r.out, "c"), uint64_t{M} * N * 4), c.data);
  EXPECT_THAT(r.out, HasSubstr("op log          " + std::to_string(read_oplog(dir + "/ops.log").size()) +
                               " records in " + dir + "/ops.log"));

  // And C is the product within the f32 tolerance (computed here in f64):
  // rtol x |want| + atol_factor x the largest |want|.
  const tolerance tol = tolerance_for(dtype::f32);
  std::vector<double> want(size_t{M} * N, 0.0);
  double scale = 0;
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      for (uint32_t k = 0; k < K; ++k)
        want[i * N + j] += double{av[i * K + k]} * bv[k * N + j];
      scale = std::max(scale, std::abs(want[i * N + j]));
    }
  uint64_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (std::abs(cv[i] - want[i]) > tol.rtol * std::abs(want[i]) + tol.atol_factor * scale)
      ++bad;
  EXPECT_EQ(bad, 0u);
}

// Without --verify a random input goes straight into the image a chunk at a
// time (no values kept for a reference): the same bytes as with it.
TEST(KernelRun, InputsAreTheSameBytesWithAndWithoutVerify) {
  const std::string dir = test::temp_dir("inputs_verify");
  // 3 Mi + 5 elements: more than one chunk of 1 Mi, and a partial one.
  const std::string base = "run --kernel gemm --arg M=3 --arg K=1048577 --arg N=1 --arg tile=4096 "
                           "--arg block_m=3 --seed 7 --pes 1 --quiet ";
  for (const std::string types : {"--arg dtype=f16", "--arg dtype=bf16", "--arg dtype=f32",
                                  "--arg dtype=i8 --arg out_dtype=i32"}) {
    const std::string d = dir + "/" + types.substr(12, types.find(' ', 12) - 12);
    ASSERT_EQ(run_kernbench(base + types + " --dump-tensors " + d + "/plain").exit_code, 0);
    ASSERT_EQ(run_kernbench(base + types + " --verify --dump-tensors " + d + "/verified").exit_code,
              0);
    const std::string a = slurp(d + "/plain/a.npy");
    EXPECT_GT(a.size(), 3u * 1048577) << types;
    EXPECT_TRUE(a == slurp(d + "/verified/a.npy")) << types;
    EXPECT_TRUE(slurp(d + "/plain/b.npy") == slurp(d + "/verified/b.npy")) << types;
  }
}

TEST(KernelRun, TheSeedChoosesTheInputs) {
  const std::string dir = test::temp_dir("seeds");
  const std::string base = "run --kernel gemm --arg M=16 --arg K=16 --arg N=16 --arg tile=16 ";
  ASSERT_EQ(run_kernbench(base + "--seed 1 --dump-tensors " + dir + "/s1").exit_code, 0);
  ASSERT_EQ(run_kernbench(base + "--seed 1 --dump-tensors " + dir + "/s1b").exit_code, 0);
  ASSERT_EQ(run_kernbench(base + "--seed 2 --dump-tensors " + dir + "/s2").exit_code, 0);
  EXPECT_EQ(slurp(dir + "/s1/a.npy"), slurp(dir + "/s1b/a.npy"));
  EXPECT_NE(slurp(dir + "/s1/a.npy"), slurp(dir + "/s2/a.npy"));
  EXPECT_NE(slurp(dir + "/s1/a.npy"), slurp(dir + "/s1/b.npy"));
}

// Also gemm_pipelined: out-of-order dispatch, load_async, accumulating
// dots, masked edges and a 2-D grid (issue 29).
class KernelThreads : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(
  Kernels, KernelThreads,
  ::testing::Values("gemm --arg M=200 --arg K=96 --arg N=80 --arg tile=32 --arg block_m=32 "
                    "--arg dtype=bf16",
                    "gemm_pipelined --arg M=200 --arg K=96 --arg N=80 --arg block_m=32 "
                    "--arg block_n=48 --arg block_k=40 --arg dtype=bf16"));

TEST_P(KernelThreads, OpLogAndTensorsAreTheSameForOneTwoAndFourThreads) {
  const std::string dir = test::temp_dir("threads");
  const std::string base = std::string("run --pes all --verify --kernel ") + GetParam() + " ";
  for (const char* t : {"1", "2", "4"}) {
    const std::string d = dir + "/t" + t;
    const auto r = run_kernbench(base + "--threads " + t + " --dump-tensors " + d +
                                 " --oplog " + d + ".log");
    ASSERT_EQ(r.exit_code, 0) << t << r.err;
    EXPECT_THAT(r.out, HasSubstr("verdict: PASS"));
  }
  const std::string log1 = slurp(dir + "/t1.log");
  ASSERT_GT(log1.size(), 1000u);
  for (const char* t : {"2", "4"}) {
    EXPECT_TRUE(slurp(dir + "/t" + t + ".log") == log1) << t << " threads: op log differs";
    for (const char* name : {"a", "b", "c"})
      EXPECT_TRUE(slurp(dir + "/t" + t + "/" + name + ".npy") ==
                  slurp(dir + "/t1/" + name + ".npy"))
        << t << " threads: " << name << ".npy differs";
  }
}

TEST(KernelRun, AFailedRunExitsOneNamingTheFailure) {
  // One 1024x1024 f16 tile of A is 2 MiB, more than a replay slot (1 MiB):
  // with the op log on, its DMA read fails when it ends. The kernel starts
  // at its launch, 6 ns (M_CPU -> NOC 1, NOC 4, NOC -> PE_CPU 1); from there
  // the read is taken at 2 ns, setup to 10, HBM from 14 for 4096 ns (head
  // out at 114, tail at 4210); the 256 GB/s pe_dma link holds the tail:
  // 117 + 8192 + 1 = 8310 ns, so 8316 ns.
  const auto r = run_kernbench("run --kernel gemm --verify --arg M=1024 --arg K=1024 "
                               "--arg N=64 --arg tile=1024 --arg block_m=1024");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "kernbench run --kernel gemm: sip0.cube0.pe0.pe_dma at t=8316000 ps: op log: "
                   "sip0.cube0.pe0.pe_dma tile 0 of command 1 (dma_read): a 1024x1024 f16 tile "
                   "takes 2097152 B; the replay's operand slots hold 1048576 B (use smaller "
                   "tiles to verify)\n");
}

TEST(KernelRun, TensorsOverTheMemoryBudgetAreRefusedWithTheEstimate) {
  // a, b: 8192^2 f16, c: 8192^2 f32; each counted 3x in its dtype (host
  // image, memory copy, replay image) and 8 B per element (f32 values and
  // reference): 2 x 939,524,096 + 1,342,177,280 = 3 GiB.
  const auto r = run_kernbench("run --kernel gemm --arg M=8192 --arg K=8192 --arg N=8192",
                               "KB_MEMORY_BUDGET_MB=1024");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: kernel gemm's tensors needs about 3.0 GiB of memory, more "
                   "than the budget of 1.0 GiB (KB_MEMORY_BUDGET_MB)\n");
}

TEST(KernelRun, AnOpLogItCannotWriteIsRefusedBeforeTheRun) {
  const auto r = run_kernbench("run --kernel gemm --oplog /nonexistent-dir/x.oplog");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: cannot write --oplog file '/nonexistent-dir/x.oplog': No "
                   "such file or directory\n");
  EXPECT_EQ(r.out, "") << "nothing ran";
}

TEST(KernelRun, InputsFromNpyFilesAreCheckedAndGiveTheSameOutputs) {
  const std::string dir = test::temp_dir("kernel_inputs");
  const std::string small = " --arg rows=4 --arg cols=8";
  ASSERT_EQ(run_kernbench("run --kernel layernorm" + small + " --dump-tensors " + dir + "/a")
              .exit_code,
            0);
  // The dumped inputs, given back with another seed: the same output.
  const auto r = run_kernbench("run --kernel layernorm" + small + " --seed 99 --verify --input x=" +
                               dir + "/a/x.npy --input gamma=" + dir + "/a/gamma.npy --input beta=" +
                               dir + "/a/beta.npy --dump-tensors " + dir + "/b");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS"));
  EXPECT_TRUE(slurp(dir + "/a/y.npy") == slurp(dir + "/b/y.npy"));
  const auto shape = run_kernbench("run --kernel layernorm --input x=" + dir + "/a/x.npy");
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_EQ(shape.err, "kernbench: error: --input x=" + dir +
                         "/a/x.npy: the file holds a 4x8 array; tensor x is 32x512\n");
  const auto name = run_kernbench("run --kernel layernorm --input z=" + dir + "/a/x.npy");
  EXPECT_EQ(name.exit_code, 2);
  EXPECT_EQ(name.err, "kernbench: error: --input z=" + dir +
                        "/a/x.npy: kernel layernorm has no input 'z' (its inputs: x, gamma, beta)\n");
}

// A kernel run split over processes (issue 13): every process builds the
// same grid and tensors from the seed, the others ship their op records to
// rank 0, which writes the same op log bytes as one process and verifies.
// Standard output is the one-process output but for Phase 2's wall time
// and batch count.
TEST(KernelSplit, ASplitKernelRunWritesTheSameOpLogAndOutput) {
  using test::without_wall;
  const std::string dir = test::temp_dir("kernel_split");
  for (const std::string kernel : {"gemm --arg M=256 --arg K=128 --arg N=192",
                                   "eltwise_chain --arg rows=100 --arg cols=96",
                                   "gemm_pipelined --arg M=100 --arg K=72 --arg N=90 "
                                   "--arg block_m=32 --arg block_n=32 --arg block_k=32"}) {
    const std::string base = "run --topology " + test::source_dir() +
                             "/config/scale/2sip_2cube_4pe.yaml --kernel " + kernel + " --verify";
    const auto one = run_kernbench(base + " --oplog " + dir + "/one.oplog");
    ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
    EXPECT_THAT(one.out, HasSubstr("\nverdict: PASS\n"));
    const std::string log = slurp(dir + "/one.oplog");
    ASSERT_FALSE(log.empty());
    for (const std::string split : {"--procs 2", "--procs 4", "--procs 2 --threads 2"}) {
      const auto r = run_kernbench(base + " " + split + " --oplog " + dir + "/one.oplog");
      ASSERT_EQ(r.exit_code, 0) << kernel << " " << split << "\n" << r.out << r.err;
      EXPECT_EQ(slurp(dir + "/one.oplog"), log) << kernel << " " << split;
      EXPECT_EQ(without_wall(r.out), without_wall(one.out)) << kernel << " " << split;
    }
  }
}

// An error in a kernel ends a split run with exit 1 and the kernel's message,
// in every process.
TEST(KernelSplit, AKernelErrorEndsASplitRunNamingIt) {
  // Every PE fails at 6 ns. The process that fails first tells the other,
  // which stops at once: it used to wait 120 s for promises from the failed
  // shard before giving up (a liveness bound here, as for a lost peer).
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_kernbench("run --topology " + test::source_dir() +
                               "/config/scale/2sip_2cube_4pe.yaml --kernel eltwise_chain "
                               "--arg rows=2000 --arg block_rows=2000 --arg cols=1024 --procs 2");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr(": TCM overflow: a 2000x1024 bf16 tensor needs 4096000 B"));
}

} // namespace
} // namespace kb
