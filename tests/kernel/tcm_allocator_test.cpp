// AllocatableTCM (runtime/kernel/tcm_allocator): first fit from the end of
// SchedulerReservedTCM, 64 B alignment, coalescing free list; exact offsets
// and the texts of its errors.

#include "runtime/kernel/tcm_allocator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

namespace kb {
namespace {

using ::testing::ThrowsMessage;

TEST(TcmAllocator, FirstBlockStartsRightAfterTheReservedPart) {
  tcm_allocator t(4096, 1024);
  EXPECT_EQ(t.allocate(100), 1024u);  // rounded up to 128 B
  EXPECT_EQ(t.allocate(64), 1152u);   // 1024 + 128
  EXPECT_EQ(t.allocate(1), 1216u);    // 1152 + 64
  EXPECT_EQ(t.used(), 128u + 64 + 64);
  EXPECT_EQ(t.free_bytes(), 4096u - 1024 - 256);
  EXPECT_EQ(t.size(), 4096u);
  EXPECT_EQ(t.reserved(), 1024u);
}

TEST(TcmAllocator, AnUnalignedReservedPartIsRoundedUpToTheAlignment) {
  tcm_allocator t(4096, 100); // AllocatableTCM starts at 100; first aligned offset 128
  EXPECT_EQ(t.allocate(1), 128u);
  EXPECT_EQ(t.free_bytes(), 4096u - 128 - 64);
}

TEST(TcmAllocator, ZeroBytesStillTakeOneAlignedBlock) {
  tcm_allocator t(1024, 0);
  EXPECT_EQ(t.allocate(0), 0u);
  EXPECT_EQ(t.allocate(0), 64u);
  EXPECT_EQ(t.used(), 128u);
}

TEST(TcmAllocator, ABlockTooLargeForEveryFreeBlockIsRefused) {
  tcm_allocator t(4096, 1024);
  EXPECT_EQ(t.allocate(3073), std::nullopt); // 3072 B are allocatable
  EXPECT_EQ(t.allocate(3072), 1024u);        // exactly all of it
  EXPECT_EQ(t.allocate(1), std::nullopt);
  EXPECT_EQ(t.free_bytes(), 0u);
  EXPECT_EQ(t.largest_free(), 0u);
}

TEST(TcmAllocator, ASizeThatOverflowsWhenRoundedUpIsRefused) {
  tcm_allocator t(4096, 0);
  EXPECT_EQ(t.allocate(std::numeric_limits<uint64_t>::max()), std::nullopt);
  EXPECT_EQ(t.allocate(std::numeric_limits<uint64_t>::max() - 10), std::nullopt);
  EXPECT_EQ(t.used(), 0u);
}

TEST(TcmAllocator, FirstFitReusesTheLowestHoleThatIsLargeEnough) {
  tcm_allocator t(4096, 0);
  const auto a = t.allocate(64);  // 0
  const auto b = t.allocate(192); // 64..256
  const auto c = t.allocate(64);  // 256
  const auto d = t.allocate(256); // 320..576
  ASSERT_EQ(a, 0u);
  ASSERT_EQ(b, 64u);
  ASSERT_EQ(c, 256u);
  ASSERT_EQ(d, 320u);
  t.free(*a); // hole [0, 64)
  t.free(*c); // hole [256, 320)
  // 128 B fit in neither small hole: first fit goes past them to 576.
  EXPECT_EQ(t.allocate(128), 576u);
  // 64 B fit in the first hole.
  EXPECT_EQ(t.allocate(64), 0u);
  EXPECT_EQ(t.allocate(64), 256u);
}

TEST(TcmAllocator, FreedNeighboursCoalesceIntoOneBlock) {
  tcm_allocator t(1024, 256); // allocatable [256, 1024): 768 B
  const auto a = t.allocate(64);  // 256
  const auto b = t.allocate(64);  // 320
  const auto c = t.allocate(64);  // 384
  ASSERT_EQ(c, 384u);
  EXPECT_EQ(t.largest_free(), 1024u - 448);
  t.free(*a);
  t.free(*c); // joins the tail: [384, 1024)
  EXPECT_EQ(t.largest_free(), 640u);
  EXPECT_EQ(t.free_bytes(), 704u);
  t.free(*b); // joins both sides: [256, 1024)
  EXPECT_EQ(t.largest_free(), 768u);
  EXPECT_EQ(t.free_bytes(), 768u);
  EXPECT_EQ(t.used(), 0u);
  // All of it is one block again.
  EXPECT_EQ(t.allocate(768), 256u);
}

TEST(TcmAllocator, FreeingInAnyOrderRestoresOneBlock) {
  tcm_allocator t(2048, 0);
  std::vector<uint64_t> at;
  for (int i = 0; i < 8; ++i)
    at.push_back(*t.allocate(256));
  for (int i : {5, 1, 7, 3, 0, 6, 2, 4})
    t.free(at[i]);
  EXPECT_EQ(t.largest_free(), 2048u);
  EXPECT_EQ(t.allocate(2048), 0u);
}

TEST(TcmAllocator, PeakUsedKeepsTheHighestRoundedTotal) {
  tcm_allocator t(4096, 0);
  const auto a = t.allocate(100); // 128
  const auto b = t.allocate(200); // 256
  EXPECT_EQ(t.peak_used(), 384u);
  t.free(*a);
  t.free(*b);
  EXPECT_EQ(t.used(), 0u);
  t.allocate(64);
  EXPECT_EQ(t.peak_used(), 384u);
}

TEST(TcmAllocator, ReservingMoreThanTheTcmIsAnError) {
  EXPECT_THAT([] { tcm_allocator t(4096, 4097); },
              ThrowsMessage<std::invalid_argument>(
                "TCM: 4097 B reserved for the scheduler exceed the TCM's 4096 B"));
}

TEST(TcmAllocator, ReservingAllOfItLeavesNothingToAllocate) {
  tcm_allocator t(4096, 4096);
  EXPECT_EQ(t.allocate(1), std::nullopt);
  EXPECT_EQ(t.describe_free(), "0 B of the 0 B AllocatableTCM free (largest block 0 B)");
}

TEST(TcmAllocator, DoubleFreeIsAnError) {
  tcm_allocator t(4096, 0);
  const auto a = t.allocate(64);
  t.free(*a);
  EXPECT_THAT([&] { t.free(*a); },
              ThrowsMessage<std::logic_error>("TCM: free of offset 0, which is not allocated"));
}

TEST(TcmAllocator, FreeOfAnOffsetInsideABlockIsAnError) {
  tcm_allocator t(4096, 0);
  t.allocate(256);
  EXPECT_THAT([&] { t.free(64); },
              ThrowsMessage<std::logic_error>("TCM: free of offset 64, which is not allocated"));
  EXPECT_EQ(t.used(), 256u);
}

TEST(TcmAllocator, DescribeFreeNamesFreeTotalAndLargestBlock) {
  tcm_allocator t(4096, 1024);
  EXPECT_EQ(t.describe_free(), "3072 B of the 3072 B AllocatableTCM free (largest block 3072 B)");
  const auto a = t.allocate(1024); // 1024..2048
  t.allocate(64);                  // 2048..2112
  t.free(*a);
  EXPECT_EQ(t.describe_free(), "3008 B of the 3072 B AllocatableTCM free (largest block 1984 B)");
}

} // namespace
} // namespace kb
