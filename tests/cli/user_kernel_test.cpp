// Issue 12 item 7: kernels of your own without rebuilding kernbench. A
// kernel library is loaded with `run --kernel-lib` (its kernels run and
// verify like shipped ones; a bad library is a usage error naming it).

#include "kernels/registry.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kb {
namespace {

using test::run_kernbench;

const std::string k_run = "run --quiet ";

TEST(kernel_lib, a_loaded_kernel_runs_and_verifies) {
  const auto r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_good
                               " --kernel twice --arg rows=20 --verify");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kernel twice on 1 PE(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: PASS"), std::string::npos) << r.out;
}

TEST(kernel_lib, list_kernels_shows_shipped_and_loaded_kernels_with_their_args) {
  const auto r = run_kernbench("list-kernels --kernel-lib " KB_TEST_KERNELS_good);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("softmax (shipped)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("twice (" KB_TEST_KERNELS_good ")\n"
                       "  Z = 2 X, one row block per program (a test kernel library)\n"
                       "  --arg rows=32                rows of X and Z\n"
                       "  --arg cols=16                columns\n"),
            std::string::npos)
    << r.out;
}

TEST(kernel_lib, a_library_that_cannot_be_opened_is_refused_with_the_loader_reason) {
  const auto r = run_kernbench(k_run + "--kernel-lib /nonexistent/libnone.so --kernel twice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib /nonexistent/libnone.so: cannot load it: "
                   "/nonexistent/libnone.so: cannot open shared object file: No such file or "
                   "directory\n");
  // Not a shared library at all.
  const std::string dir = test::temp_dir("not_a_library");
  std::ofstream(dir + "/libtext.so") << "hello\n";
  const auto t = run_kernbench(k_run + "--kernel-lib " + dir + "/libtext.so --kernel twice");
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.err.find("kernbench: error: --kernel-lib " + dir + "/libtext.so: cannot load it: " +
                       dir + "/libtext.so: "),
            std::string::npos)
    << t.err;
}

TEST(kernel_lib, a_library_without_the_entry_points_is_refused) {
  const auto r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_none " --kernel twice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib " KB_TEST_KERNELS_none ": not a kernbench "
                   "kernel library: it does not export kernbench_register_kernels (build it with "
                   "kernbench_add_kernel_library from find_package(kernbench))\n");
}

TEST(kernel_lib, a_library_built_for_another_kernel_abi_is_refused) {
  const auto r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_abi " --kernel twice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib " KB_TEST_KERNELS_abi ": built for kernel "
                   "ABI " + std::to_string(kernel_abi_version + 1) + ", this kernbench has "
                   "kernel ABI " + std::to_string(kernel_abi_version) + " (rebuild it against "
                   "this kernbench's installation)\n");
}

TEST(kernel_lib, a_kernel_name_that_is_taken_is_refused) {
  auto r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_shipped " --kernel softmax");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib " KB_TEST_KERNELS_shipped ": kernel softmax "
                   "is already defined (kernbench ships it)\n");
  r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_good " --kernel-lib "
                    KB_TEST_KERNELS_again " --kernel twice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib " KB_TEST_KERNELS_again ": kernel twice is "
                   "already defined (by " KB_TEST_KERNELS_good ")\n");
  r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_twice " --kernel twice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib " KB_TEST_KERNELS_twice ": kernel twice is "
                   "added twice\n");
}

TEST(kernel_lib, needs_kernel_and_an_unknown_kernel_names_the_loaded_ones) {
  auto r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_good);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib: only with --kernel (a library adds kernels "
                   "to run)\n");
  r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_good " --kernel thrice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--kernel thrice: no such kernel (kernbench ships eltwise_chain, gemm, "
                       "gemm_bias_relu, layernorm, softmax; the --kernel-lib libraries add "
                       "twice)\n"),
            std::string::npos)
    << r.err;
}

} // namespace
} // namespace kb
