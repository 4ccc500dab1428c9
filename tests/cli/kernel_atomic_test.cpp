// gemm_splitk (docs/adr/0027): atomics of many PEs into one C pass --verify
// and give the same op log and outputs for any thread and process count; a
// split-K kernel that stores its partial tiles instead fails verification.

#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;
using test::slurp;
using test::without_wall;

TEST(KernelAtomics, GemmSplitKIsTheSameForAnyThreadAndProcessCount) {
  const std::string dir = test::temp_dir("gemm_splitk");
  // 8 programs over the 16 PEs of 2 SIPs: atomics from both SIPs' PEs
  // meet at the HBM that holds C.
  const std::string base = "run --topology " + test::source_dir() +
                           "/config/scale/2sip_2cube_4pe.yaml --kernel gemm_splitk --arg M=64 "
                           "--arg K=512 --arg N=96 --arg tile=32 --arg split=8 --verify";
  const auto one = run_kernbench(base + " --oplog " + dir + "/one.oplog --dump-tensors " + dir +
                                 "/one");
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_THAT(one.out, HasSubstr("\nverdict: PASS\n"));
  const std::string log = slurp(dir + "/one.oplog");
  const std::string c = slurp(dir + "/one/c.npy");
  ASSERT_FALSE(log.empty());
  ASSERT_FALSE(c.empty());
  for (const std::string how : {"--threads 2", "--threads 4", "--procs 2"}) {
    const auto r = run_kernbench(base + " " + how + " --oplog " + dir + "/other.oplog" +
                                 " --dump-tensors " + dir + "/other");
    ASSERT_EQ(r.exit_code, 0) << how << "\n" << r.out << r.err;
    EXPECT_EQ(slurp(dir + "/other.oplog"), log) << how;
    EXPECT_EQ(slurp(dir + "/other/c.npy"), c) << how;
    // (the same report but for the file names)
    const std::string out = std::regex_replace(r.out, std::regex(dir + "/other"), dir + "/one");
    EXPECT_EQ(without_wall(out), without_wall(one.out)) << how;
  }
}

TEST(KernelAtomics, ASplitKKernelThatStoresItsPartialTilesFailsVerification) {
  const std::string args = " --quiet --pes 4 --verify --arg M=32 --arg K=128 --arg N=32 "
                           "--arg tile=32 --arg split=4";
  const auto right = run_kernbench("run --kernel gemm_splitk" + args);
  ASSERT_EQ(right.exit_code, 0) << right.out << right.err;
  EXPECT_THAT(right.out, HasSubstr("\nverdict: PASS\n"));
  const auto wrong = run_kernbench("run --kernel-lib " KB_TEST_KERNELS_checks
                                   " --kernel wrong_gemm_splitk" + args);
  EXPECT_EQ(wrong.exit_code, 3) << wrong.out << wrong.err;
  EXPECT_THAT(wrong.out, HasSubstr("\nverdict: FAIL\n"));
  EXPECT_THAT(wrong.out, HasSubstr("verify          c[0,0] = "));
}

} // namespace
} // namespace kb
