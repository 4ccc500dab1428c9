// Issue 28 item 1 and 2: a kernel can never hang or crash kernbench, and
// Phase 1 never shows data that does not exist. Each misuse of
// tests/cli/kernel_libs/misuse_kernels.cpp ends the run with exit 1 and a
// message naming the kernel and its PE, in one process and split over two
// (the misbehaving program runs on the last PE, in the second process).

#include "tests/cli/cli_support.hpp"
#include "tests/cli/misuse_run.hpp"
#include "runtime/cli/run_limits_cli.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace kb {
namespace {

using test::run_kernbench;
using ::testing::HasSubstr;

std::string misuse(const std::string& how, const std::string& more = "") {
  return test::misuse_run(how, more);
}

/// Runs it, and checks that it ended within 10 s (a liveness bound: the
/// bug this guards against is a run that never ends).
test::cli_result run_bounded(const std::string& args) {
  const auto t0 = std::chrono::steady_clock::now();
  test::cli_result r = run_kernbench(args);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10)) << args;
  return r;
}

const char* const splits[] = {"", "--procs 2"};

TEST(KernelMisuse, AnythingThrownEndsTheRunNamingTheKernelAndPe) {
  const struct {
    std::string how, what;
  } cases[] = {{"throw_int", "an int (42)"}, {"throw_string", "a string (\"no luck\")"}};
  for (const auto& k : cases)
    for (const std::string split : splits) {
      const auto r = run_bounded(misuse(k.how, split));
      EXPECT_EQ(r.exit_code, 1) << k.how << " " << split << "\n" << r.out << r.err;
      EXPECT_THAT(r.err, HasSubstr("kernel misuse on sip1.cube1.pe3.pe_cpu (program 15) failed: it threw " +
                                   k.what))
        << k.how << " " << split;
    }
}

// A fiber that never yields holds its shard's thread: the wall-clock
// watchdog ends the process and names it and every other kernel still
// running.
TEST(KernelMisuse, ASpinningKernelIsEndedByTheStallWatchdog) {
  for (const std::string split : splits) {
    const auto r = run_bounded(misuse("spin", split + " --stall-timeout 1"));
    EXPECT_EQ(r.exit_code, 1) << split << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("no simulated progress for ")) << split;
    EXPECT_THAT(r.err, HasSubstr("(--stall-timeout 1.0 s)")) << split;
    EXPECT_THAT(r.err, HasSubstr("sip1.cube1.pe3: kernel misuse has run its own code for "))
      << split;
    EXPECT_THAT(r.err, HasSubstr(" without a tl:: call")) << split;
  }
}

// Both limits are checked like any other option.
TEST(KernelMisuse, BadLimitsAreRefusedByName) {
  auto r = run_kernbench(misuse("poll", "--max-sim-time 10"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-sim-time 10: no unit (expected a simulated time with its "
                               "unit: ps, ns, us, ms or s, e.g. 1ms)"));
  r = run_kernbench(misuse("poll", "--max-sim-time 2ks"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-sim-time 2ks: unknown unit 'ks'"));
  r = run_kernbench(misuse("poll", "--max-sim-time 1000s"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-sim-time 1000s: more than 2^48 ps"));
  r = run_kernbench(misuse("poll", "--max-sim-time 0.5ps"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not a whole number of picoseconds"));
  r = run_kernbench(misuse("poll", "--stall-timeout -1"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--stall-timeout -1: expected seconds from 0"));
}

// Issue 61 item 5: a kernel run without --max-sim-time stops at a default
// end (1 s of simulated time, ~850,000 polls of a flag); `none` turns it
// off; a driver run has none.
TEST(KernelMisuse, AKernelRunHasADefaultEndThatNoneTurnsOff) {
  run_cli kernel;
  kernel.kernel = "misuse";
  machine_options o;
  apply_run_limits(kernel, o);
  EXPECT_EQ(o.end, kernel_default_end);
  EXPECT_EQ(o.end, SimTime{1'000'000'000'000});
  kernel.max_sim_time = "none";
  machine_options off;
  apply_run_limits(kernel, off);
  EXPECT_TRUE(off.end.is_infinite());
  machine_options driver;
  apply_run_limits(run_cli{}, driver);
  EXPECT_TRUE(driver.end.is_infinite());
  // The same through the command line: accepted, and the run is unchanged.
  const auto r = run_kernbench(misuse("none", "--max-sim-time none"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// A kernel polling a flag nothing sets runs on in simulated time: the run
// stops at --max-sim-time and names what is still pending, the polling
// kernel and the load it waits for among it.
TEST(KernelMisuse, APollingKernelIsEndedAtMaxSimTime) {
  for (const std::string split : splits) {
    const auto r = run_bounded(misuse("poll", split + " --max-sim-time 20us"));
    EXPECT_EQ(r.exit_code, 1) << split << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("the run reached --max-sim-time 20000000 ps with work pending"))
      << split;
    EXPECT_THAT(r.err, HasSubstr("sip1.cube1.pe3.pe_cpu: kernel misuse has not returned (it "
                                 "waits for command "))
      << split;
    // Only the poller holds work: the other 15 programs returned.
    EXPECT_THAT(r.err, ::testing::Not(HasSubstr("sip0.cube0.pe0.pe_cpu: kernel"))) << split;
  }
  // A run that ends before the limit is not touched by it.
  const auto ok = run_kernbench(misuse("none", "--max-sim-time 1ms"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

// The last program loads what program 0 stored from a compute result on
// another PE: the memory knows those bytes are pending and the load gives a
// tensor without data (docs/adr/0043); reading an element of it fails
// naming the load, both kernels' commands and both PEs, instead of reading
// the zeros Phase 1 holds there (the Phase 2 replay would see the real values).
TEST(KernelMisuse, ReadingAnotherPesPendingResultIsAnError) {
  for (const std::string split : splits) {
    const auto r = run_bounded(misuse("cross_read", split));
    EXPECT_EQ(r.exit_code, 1) << split << "\n" << r.out << r.err;
    // Program 15 issued 41 loads before it (the first, then 40 to pass time).
    EXPECT_THAT(r.err, HasSubstr("kernel misuse on sip1.cube1.pe3 (program 15): the data of a 1x64 f32 "
                                 "tensor loaded by command 42 was read in Phase 1; the bytes it "
                                 "loaded hold a compute result (command 3 of kernel misuse on "
                                 "sip0.cube0.pe0 wrote them)"))
      << split;
  }
}

// Issue 27 item 4: options that do not apply are refused by name, never
// ignored: the driver's with --kernel, a kernel's without it.
TEST(KernelOptions, OptionsThatDoNotApplyAreRefusedByName) {
  const struct {
    std::string args, err;
  } cases[] = {
    {"--kernel gemm --M 64", "--M: not with --kernel; a kernel takes its sizes and types as "
                             "arguments, e.g. --arg M=... (`kernbench list-kernels` lists "
                             "kernel gemm's)"},
    {"--kernel gemm --out-dtype f32", "--out-dtype: not with --kernel; a kernel takes its "
                                      "sizes and types as arguments, e.g. --arg out_dtype=..."},
    {"--kernel softmax --tile 64 64", "--tile: not with --kernel;"},
    {"--kernel gemm --op math", "--op: not with --kernel (it shapes the built-in driver's "
                                "commands; a kernel issues its own)"},
    {"--kernel gemm --repeat 2", "--repeat: not with --kernel"},
    {"--kernel gemm --placement sram", "--placement: not with --kernel"},
    {"--arg M=64", "--arg: only with --kernel or --program (it is a kernel's; the built-in driver takes "
                   "--M, --K, --N, --dtype, ...)"},
    {"--input a=x.npy", "--input: only with --kernel or --program"},
  };
  for (const auto& k : cases) {
    const auto r = run_kernbench("run --quiet " + k.args);
    EXPECT_EQ(r.exit_code, 2) << k.args << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("kernbench: error: " + k.err)) << k.args;
  }
  // The same values as --arg run.
  const auto ok = run_kernbench("run --quiet --kernel gemm --arg M=64 --arg K=64 --arg N=64 "
                                "--arg block_m=64");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

} // namespace
} // namespace kb
