// for_each_index: every index once, on up to the threads asked; the
// exception of the lowest failing index, as the plain loop would throw.

#include "runtime/parallel_indices.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace kb {
namespace {

std::string failure(size_t n, size_t threads, const std::set<size_t>& bad) {
  try {
    for_each_index(n, threads, [&](size_t i) {
      if (bad.count(i))
        throw std::runtime_error(std::to_string(i));
    });
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "none";
}

TEST(ForEachIndex, VisitsEveryIndexOnce) {
  for (size_t threads : {1u, 2u, 3u, 8u}) {
    std::vector<std::atomic<int>> seen(10'000);
    for_each_index(seen.size(), threads, [&](size_t i) { seen[i].fetch_add(1); });
    for (size_t i = 0; i < seen.size(); ++i)
      ASSERT_EQ(seen[i].load(), 1) << "index " << i << ", " << threads << " threads";
  }
}

TEST(ForEachIndex, UsesUpToTheThreadsAskedAndNoneForSmallLoops) {
  auto threads_used = [](size_t n, size_t threads, size_t min_block) {
    std::mutex m;
    std::set<std::thread::id> ids;
    for_each_index(n, threads, [&](size_t) {
      std::lock_guard lock(m);
      ids.insert(std::this_thread::get_id());
    }, min_block);
    return ids;
  };
  const auto small = threads_used(min_parallel_block, 8, min_parallel_block);
  EXPECT_EQ(small, std::set<std::thread::id>{std::this_thread::get_id()});
  EXPECT_LE(threads_used(100'000, 4, min_parallel_block).size(), 4u);
  EXPECT_LE(threads_used(3, 8, 1).size(), 3u);
}

TEST(ForEachIndex, RethrowsTheLowestFailingIndexWhateverTheThreads) {
  // 4,096 indices on 8 threads: blocks of 512. Failures in several blocks,
  // and two in one block.
  const std::set<size_t> bad{700, 3000, 4095, 600};
  for (size_t threads : {1u, 2u, 8u})
    EXPECT_EQ(failure(4096, threads, bad), "600") << threads << " threads";
  EXPECT_EQ(failure(4096, 8, {4095}), "4095");
  EXPECT_EQ(failure(4096, 8, {}), "none");
}

} // namespace
} // namespace kb
