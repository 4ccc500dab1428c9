// A kernel's TCM pool (runtime/kernel/tcm_pool): a dropped tensor's block
// is freed only once every command that used it is done.

#include "runtime/kernel/tcm_pool.hpp"

#include <gtest/gtest.h>

#include <set>

namespace kb {
namespace {

struct fixture {
  std::set<uint64_t> done;
  tcm_pool pool{4096, 1024, [this](uint64_t id) { return done.count(id) > 0; }};
};

TEST(TcmPool, ABlockWhoseCommandsAreDoneIsFreedAtOnce) {
  fixture f;
  const auto a = f.pool.allocate(3072); // all of AllocatableTCM
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, 1024u);
  EXPECT_FALSE(f.pool.allocate(64));
  f.done = {7};
  f.pool.release(*a, {7});
  EXPECT_EQ(f.pool.deferred(), 0u);
  EXPECT_EQ(f.pool.allocate(3072), std::optional<uint64_t>(1024));
}

TEST(TcmPool, ABlockInUseWaitsForAllItsCommands) {
  fixture f;
  const auto a = f.pool.allocate(3072);
  ASSERT_TRUE(a);
  f.done = {7};
  f.pool.release(*a, {7, 9}); // command 9 still reads it
  EXPECT_EQ(f.pool.deferred(), 1u);
  EXPECT_FALSE(f.pool.sweep());
  EXPECT_FALSE(f.pool.allocate(64)); // not free while 9 runs
  f.done.insert(9);
  EXPECT_EQ(f.pool.allocate(3072), std::optional<uint64_t>(1024)); // allocate sweeps
  EXPECT_EQ(f.pool.deferred(), 0u);
}

TEST(TcmPool, ASweepFreesOnlyTheBlocksWhoseCommandsAreDone) {
  fixture f;
  const auto a = f.pool.allocate(1024), b = f.pool.allocate(1024);
  ASSERT_TRUE(a && b);
  f.pool.release(*a, {1});
  f.pool.release(*b, {2});
  EXPECT_EQ(f.pool.allocator().used(), 2048u);
  f.done = {2};
  EXPECT_TRUE(f.pool.sweep());
  EXPECT_EQ(f.pool.deferred(), 1u);
  EXPECT_EQ(f.pool.allocator().used(), 1024u);
  EXPECT_EQ(f.pool.allocator().peak_used(), 2048u);
}

} // namespace
} // namespace kb
