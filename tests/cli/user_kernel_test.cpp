// Issue 12 item 7: kernels of your own without rebuilding kernbench. A
// kernel library is loaded with `run --kernel-lib` (its kernels run and
// verify like shipped ones; a bad library is a usage error naming it), and
// `cmake --install` gives a prefix that examples/user_kernel builds against
// with a fresh CMake run.

#include "kernels/registry.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kb {
namespace {

using test::run_kernbench;

const std::string k_run = "run --quiet ";

TEST(kernel_lib, a_loaded_kernel_runs_and_verifies) {
  const auto r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_good
                               " --kernel twice --arg rows=20 --verify");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kernel twice on 2 PE(s)"), std::string::npos) << r.out; // its 2 programs, one PE each
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
  r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_good " --kernel-lib "
                    KB_TEST_KERNELS_good " --kernel twice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib " KB_TEST_KERNELS_good ": loaded already "
                   "(given twice?)\n");
  r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_twice " --kernel twice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib " KB_TEST_KERNELS_twice ": kernel twice is "
                   "added twice\n");
}

TEST(kernel_lib, needs_kernel_and_an_unknown_kernel_names_the_loaded_ones) {
  auto r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_good);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --kernel-lib: only with --kernel or --program (a library adds "
                   "kernels and programs to run)\n");
  r = run_kernbench(k_run + "--kernel-lib " KB_TEST_KERNELS_good " --kernel thrice");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--kernel thrice: no such kernel (kernbench ships eltwise_chain, "
                       "flash_attention, gemm, gemm_bias_relu, gemm_pipelined, gemm_splitk, "
                       "layernorm, softmax; the --kernel-lib libraries add "
                       "twice)\n"),
            std::string::npos)
    << r.err;
}

// -- the installed package ------------------------------------------------------

/// Runs a shell command; its output goes to `log` (returned on failure).
int sh(const std::string& cmd, const std::string& log) {
  const int status = std::system((cmd + " >" + log + " 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

TEST(kernel_lib, the_example_builds_against_an_install_prefix_and_runs) {
  const std::string dir = test::temp_dir("install");
  const std::string prefix = dir + "/prefix", build = dir + "/example", log = dir + "/log";
  const std::string cmake = quoted(KB_CMAKE_COMMAND);
  ASSERT_EQ(sh(cmake + " --install " + quoted(KB_BUILD_DIR) + " --prefix " + prefix, log), 0)
    << slurp(log);
  for (const char* f : {"bin/kernbench", "include/kernbench/kernels/tl.hpp",
                        "include/kernbench/kernels/registry.hpp",
                        "lib/cmake/kernbench/kernbenchConfig.cmake",
                        "lib/cmake/kernbench/kernbenchConfigVersion.cmake",
                        "share/kernbench/config/topology.yaml",
                        "share/kernbench/config/components.yaml"})
    EXPECT_TRUE(std::filesystem::exists(prefix + "/" + f)) << f;
  // The kernel API is self-contained: no runtime header ships, and the
  // installed headers need nothing but the standard library and each other.
  EXPECT_FALSE(std::filesystem::exists(prefix + "/include/kernbench/runtime"));
  for (const char* h : {"tl.hpp", "registry.hpp"})
    ASSERT_EQ(sh(quoted(KB_CXX_COMPILER) + " -std=c++20 -fsyntax-only -I " + prefix +
                   "/include/kernbench -x c++ " + prefix + "/include/kernbench/kernels/" + h,
                 log),
              0)
      << h << "\n" << slurp(log);

  // A fresh CMake run that knows only the prefix (no kernbench source or build tree).
  const std::string example = test::source_dir() + "/examples/user_kernel";
  ASSERT_EQ(sh(cmake + " -S " + quoted(example) + " -B " + build + " -G " +
                 quoted(KB_CMAKE_GENERATOR) + " -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=" +
                 quoted(KB_CXX_COMPILER) + " -DCMAKE_PREFIX_PATH=" + prefix,
               log),
            0)
    << slurp(log);
  ASSERT_EQ(sh(cmake + " --build " + build, log), 0) << slurp(log);
  const std::string lib = build + "/libuser_kernels.so";
  ASSERT_TRUE(std::filesystem::exists(lib));

  const std::string kernbench = prefix + "/bin/kernbench";
  ASSERT_EQ(sh("env -u KB_CONFIG_DIR " + kernbench + " run --quiet --kernel-lib " + lib +
                 " --kernel scaled_add --arg alpha=2 --arg dtype=bf16 --verify",
               log),
            0)
    << slurp(log);
  const std::string out = slurp(log);
  EXPECT_NE(out.find("verdict: PASS"), std::string::npos) << out;
  // The installed binary reads the installed config, not the source tree's.
  EXPECT_NE(out.find("topology: " + prefix + "/share/kernbench/config/topology.yaml"),
            std::string::npos)
    << out;
  std::filesystem::remove_all(dir); // the installed binary is large
}

} // namespace
} // namespace kb
