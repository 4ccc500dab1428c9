// Issue 29's shipped kernels: gemm_pipelined (2-D grid, load_async double
// buffering, accumulating dots, masked edges) and flash_attention (K^T by a
// transposed dot, online softmax, causal masks) pass --verify over ragged
// shapes and their dtypes, and refuse what they do not support by name.
// Issue 60's additions (what the decoder_layer program launches):
// gemm_pipelined's epilogue (relu or GELU, then a residual tensor) and
// flash_attention's packed layout (one QKV tensor, row-strided heads).

#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

class overlap_kernel : public ::testing::TestWithParam<std::string> {};

TEST_P(overlap_kernel, passes_verify) {
  const auto r = run_kernbench("run --quiet --pes 4 --verify --kernel " + GetParam());
  ASSERT_EQ(r.exit_code, 0) << GetParam() << "\n" << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nverdict: PASS\n"));
}

INSTANTIATE_TEST_SUITE_P(
  issue29, overlap_kernel,
  ::testing::Values(
    // ragged in M, N and K; each dtype; blocks that are not squares
    "gemm_pipelined --arg M=200 --arg K=300 --arg N=100",
    "gemm_pipelined --arg M=130 --arg K=70 --arg N=129 --arg dtype=bf16 --arg out_dtype=bf16",
    "gemm_pipelined --arg M=64 --arg K=96 --arg N=80 --arg dtype=f32 --arg block_m=32 "
    "--arg block_n=48 --arg block_k=40",
    "gemm_pipelined --arg M=100 --arg K=200 --arg N=60 --arg dtype=i8 --arg out_dtype=i32",
    // causal or not, f16 and bf16, head dims 64 and 128, a ragged last query block
    "flash_attention --arg heads=2 --arg seq=96 --arg block_m=32 --arg block_n=32",
    "flash_attention --arg heads=2 --arg seq=100 --arg block_m=32 --arg block_n=32 --arg causal=1",
    "flash_attention --arg heads=1 --arg seq=64 --arg head_dim=128 --arg dtype=bf16 "
    "--arg causal=1 --arg block_m=32 --arg block_n=16",
    "flash_attention --arg heads=3 --arg seq=48 --arg head_dim=128 --arg block_m=16 "
    "--arg block_n=32",
    // the epilogue: each activation, with and without a residual, ragged edges
    "gemm_pipelined --arg M=100 --arg K=96 --arg N=72 --arg block_m=32 --arg block_n=32 "
    "--arg block_k=32 --arg activation=gelu",
    "gemm_pipelined --arg M=100 --arg K=96 --arg N=72 --arg block_m=32 --arg block_n=32 "
    "--arg block_k=32 --arg activation=relu --arg residual=1 --arg out_dtype=f16",
    "gemm_pipelined --arg M=64 --arg K=64 --arg N=64 --arg block_m=32 --arg block_n=32 "
    "--arg block_k=32 --arg residual=1 --arg dtype=bf16 --arg out_dtype=bf16",
    // the packed layout: causal or not, ragged, head dims 64 and 128
    "flash_attention --arg heads=2 --arg seq=100 --arg block_m=32 --arg block_n=32 "
    "--arg causal=1 --arg layout=packed",
    "flash_attention --arg heads=3 --arg seq=48 --arg head_dim=128 --arg block_m=16 "
    "--arg block_n=32 --arg layout=packed --arg dtype=bf16"),
  [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(overlap_kernels, refuse_what_they_do_not_support) {
  auto r = run_kernbench("run --kernel gemm_pipelined --arg dtype=i8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --arg dtype=i8 with out_dtype=f32: kernel gemm_pipelined "
                   "accumulates i8 in i32, exactly (give --arg out_dtype=i32)\n");
  r = run_kernbench("run --kernel gemm_pipelined --arg block_k=0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("kernel gemm_pipelined needs M, K, N, block_m, block_n and "
                               "block_k above 0"));
  r = run_kernbench("run --kernel flash_attention --arg head_dim=96");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--arg head_dim=96: kernel flash_attention takes 64 or 128"));
  r = run_kernbench("run --kernel flash_attention --arg dtype=f32");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("kernel flash_attention takes f16 or bf16 for dtype"));
  r = run_kernbench("run --kernel gemm_pipelined --arg activation=swish");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("kernel gemm_pipelined takes none, relu or gelu for activation"));
  r = run_kernbench("run --kernel gemm_pipelined --arg dtype=i8 --arg out_dtype=i32 "
                    "--arg residual=1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("kernel gemm_pipelined has its epilogue for float types only"));
}

} // namespace
} // namespace kb
