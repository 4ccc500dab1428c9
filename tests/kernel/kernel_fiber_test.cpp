// A kernel's own stack (runtime/kernel/kernel_fiber): it runs until it
// suspends, resumes where it stopped, rethrows what the kernel threw on the
// caller's stack, and unwinds a suspended kernel's stack when destroyed.

#include "kernels/tl.hpp"
#include "runtime/kernel/kernel_fiber.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb {
namespace {

using ::testing::ThrowsMessage;

TEST(KernelFiber, RunsToTheSuspendAndResumesThere) {
  std::vector<std::string> trace;
  std::unique_ptr<kernel_fiber> f;
  f = std::make_unique<kernel_fiber>([&] {
    trace.push_back("a");
    f->suspend();
    trace.push_back("b");
    f->suspend();
    trace.push_back("c");
  });
  EXPECT_TRUE(trace.empty()); // nothing runs before the first resume
  EXPECT_FALSE(f->finished());
  f->resume();
  EXPECT_EQ(trace, (std::vector<std::string>{"a"}));
  EXPECT_FALSE(f->finished());
  EXPECT_FALSE(f->running());
  f->resume();
  EXPECT_EQ(trace, (std::vector<std::string>{"a", "b"}));
  f->resume();
  EXPECT_EQ(trace, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(f->finished());
  EXPECT_FALSE(f->running());
}

TEST(KernelFiber, LocalsSurviveASuspend) {
  int seen = 0;
  std::unique_ptr<kernel_fiber> f;
  f = std::make_unique<kernel_fiber>([&] {
    int local = 41; // lives on the fiber's stack
    f->suspend();
    seen = local + 1;
  });
  f->resume();
  f->resume();
  EXPECT_EQ(seen, 42);
}

TEST(KernelFiber, IsRunningOnlyWhileTheKernelRuns) {
  bool inside = false;
  std::unique_ptr<kernel_fiber> f;
  f = std::make_unique<kernel_fiber>([&] { inside = f->running(); });
  f->resume();
  EXPECT_TRUE(inside);
  EXPECT_FALSE(f->running());
}

TEST(KernelFiber, AnExceptionLeavesResumeWithItsMessage) {
  std::unique_ptr<kernel_fiber> f;
  f = std::make_unique<kernel_fiber>([&] {
    f->suspend();
    throw std::runtime_error("the kernel gave up at row 7");
  });
  f->resume(); // to the suspend: no error yet
  EXPECT_THAT([&] { f->resume(); },
              ThrowsMessage<std::runtime_error>("the kernel gave up at row 7"));
  EXPECT_TRUE(f->finished());
}

TEST(KernelFiber, AKernelErrorKeepsItsType) {
  kernel_fiber f([] { throw tl::kernel_error("misaligned"); });
  EXPECT_THAT([&] { f.resume(); }, ThrowsMessage<tl::kernel_error>("misaligned"));
}

TEST(KernelFiber, ResumingAFinishedKernelIsAnError) {
  kernel_fiber f([] {});
  f.resume();
  EXPECT_THAT([&] { f.resume(); }, ThrowsMessage<std::logic_error>(
                                     "kernel_fiber: resumed after the kernel ended"));
}

TEST(KernelFiber, SuspendingFromOutsideTheKernelIsAnError) {
  kernel_fiber f([] {});
  EXPECT_THAT([&] { f.suspend(); },
              ThrowsMessage<std::logic_error>("kernel_fiber: suspend outside the kernel"));
}

TEST(KernelFiber, ResumingFromInsideTheKernelIsAnErrorTheCallerSees) {
  std::unique_ptr<kernel_fiber> f;
  f = std::make_unique<kernel_fiber>([&] { f->resume(); });
  EXPECT_THAT([&] { f->resume(); }, ThrowsMessage<std::logic_error>(
                                      "kernel_fiber: resumed from inside the kernel"));
  EXPECT_TRUE(f->finished());
}

struct sets_on_destruction {
  bool& flag;
  ~sets_on_destruction() { flag = true; }
};

TEST(KernelFiber, DestroyingASuspendedKernelUnwindsItsStack) {
  bool destroyed = false, after_suspend = false;
  std::unique_ptr<kernel_fiber> f;
  f = std::make_unique<kernel_fiber>([&] {
    sets_on_destruction guard{destroyed};
    f->suspend();
    after_suspend = true; // never reached
  });
  f->resume();
  EXPECT_FALSE(destroyed);
  f.reset();
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(after_suspend);
}

TEST(KernelFiber, DestroyingAKernelNeverStartedRunsNothing) {
  bool ran = false;
  { kernel_fiber f([&] { ran = true; }); }
  EXPECT_FALSE(ran);
}

TEST(KernelFiber, ADeepStackFitsInTheDefaultHalfMebibyte) {
  // 64 frames of 4 KiB: 256 KiB of the 512 KiB stack.
  std::function<int(int)> deep = [&](int n) -> int {
    volatile char pad[4096];
    pad[0] = static_cast<char>(n);
    return n == 0 ? pad[0] : deep(n - 1) + 1;
  };
  int got = -1;
  kernel_fiber f([&] { got = deep(63); });
  f.resume();
  EXPECT_EQ(got, 63);
}

TEST(KernelFiber, TheDefaultStackLimitLeavesRoomForTheRestOfTheProcess) {
  // Two memory maps a stack, 8,192 kept for the rest: with Linux's default
  // vm.max_map_count of 65,530, (65,530 - 8,192) / 2 = 28,669 stacks.
  std::ifstream f("/proc/sys/vm/max_map_count");
  size_t maps = 0;
  ASSERT_TRUE(f >> maps);
  ASSERT_GT(maps, 16384u);
  EXPECT_EQ(kernel_fiber::stack_limit(), (maps - 8192) / 2);
}

TEST(KernelFiber, PastTheStackLimitAKernelFailsToStartNamingTheLimit) {
  const size_t before = kernel_fiber::stacks_held();
  const scoped_stack_limit limit(2);
  auto a = std::make_unique<kernel_fiber>([] {});
  auto b = std::make_unique<kernel_fiber>([] {});
  EXPECT_EQ(kernel_fiber::stacks_held(), before + 2);
  EXPECT_THAT([] { kernel_fiber c([] {}); },
              ThrowsMessage<std::runtime_error>(::testing::StartsWith(
                "no kernel stack left: this process already holds " +
                std::to_string(before + 2) + " kernel stacks")));
  EXPECT_EQ(kernel_fiber::stacks_held(), before + 2);
  a->resume(); // returns: its stack goes back
  EXPECT_EQ(kernel_fiber::stacks_held(), before + 1);
  bool ran = false;
  kernel_fiber c([&] { ran = true; });
  c.resume();
  EXPECT_TRUE(ran);
  b.reset(); // never started: unwound and unmapped
  EXPECT_EQ(kernel_fiber::stacks_held(), before);
}

} // namespace
} // namespace kb
