// The marks a memory keeps on bytes that hold compute results (issue 28):
// a load finds a mark only where it shares a byte with it (strided tiles of
// one matrix interleave without sharing), and a store with data unmarks
// what it writes.

#include "actors/detail/pending_writes.hpp"

#include <gtest/gtest.h>

namespace kb::detail {
namespace {

tensor_view block(uint64_t at, uint64_t rows, uint64_t row_bytes, uint64_t stride) {
  return pending_writes::bytes_block(at, rows, row_bytes, stride);
}

TEST(PendingWrites, ALoadFindsAMarkOnlyWhereItSharesAByte) {
  pending_writes p;
  EXPECT_TRUE(p.empty());
  // The (0,1) tile of a 4x4 f32 matrix in 2x2 tiles: rows of 8 B at 8 and 24.
  p.add(block(0x1008, 2, 8, 16), {7, 3, "k"});
  EXPECT_FALSE(p.empty());
  // Tile (0,0) interleaves with it row by row without sharing a byte.
  EXPECT_EQ(p.find(block(0x1000, 2, 8, 16)), nullptr);
  // The last byte of its first row.
  const auto* e = p.find(block(0x100f, 1, 1, 0));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->requester, 7u);
  EXPECT_EQ(e->command, 3u);
  EXPECT_EQ(e->who, "k");
  // Just past its last row, and in the gap between its rows.
  EXPECT_EQ(p.find(block(0x1020, 1, 64, 0)), nullptr);
  EXPECT_EQ(p.find(block(0x1010, 1, 8, 0)), nullptr);
  // A whole-matrix load, and a load starting before the mark's first byte.
  EXPECT_NE(p.find(block(0x1000, 1, 32, 0)), nullptr);
  EXPECT_NE(p.find(block(0x0ff0, 1, 0x20, 0)), nullptr);
}

TEST(PendingWrites, AStoreWithDataUnmarksWhatItWrites) {
  pending_writes p;
  p.add(block(0x2000, 1, 64, 0), {1, 1, "k"});
  // Writing the middle leaves the two ends marked.
  p.clear(block(0x2010, 1, 16, 0));
  EXPECT_EQ(p.find(block(0x2010, 1, 16, 0)), nullptr);
  EXPECT_NE(p.find(block(0x200f, 1, 1, 0)), nullptr);
  EXPECT_NE(p.find(block(0x2020, 1, 1, 0)), nullptr);
  // Writing everything unmarks it all.
  p.clear(block(0x1000, 1, 0x2000, 0));
  EXPECT_TRUE(p.empty());
  // A strided mark is unmarked by a write covering it whole...
  p.add(block(0x3008, 4, 8, 32), {1, 2, "k"});
  p.clear(block(0x3000, 4, 16, 32));
  EXPECT_TRUE(p.empty());
  // ... and, written in part, only the bytes written are unmarked.
  p.add(block(0x3008, 4, 8, 32), {1, 2, "k"});
  p.clear(block(0x3008, 1, 8, 0));
  EXPECT_EQ(p.find(block(0x3008, 1, 8, 0)), nullptr);
  EXPECT_NE(p.find(block(0x3028, 1, 8, 0)), nullptr);
  EXPECT_NE(p.find(block(0x3000, 4, 16, 32)), nullptr); // rows 1..3 still marked
  p.clear(block(0x3028, 3, 8, 32));
  EXPECT_TRUE(p.empty());
}

TEST(PendingWrites, ALaterMarkOverAnEarlierOneNamesTheLaterWriter) {
  pending_writes p;
  p.add(block(0x4000, 1, 64, 0), {1, 1, "first"});
  p.add(block(0x4010, 1, 16, 0), {2, 9, "second"}); // the middle, by another command
  ASSERT_NE(p.find(block(0x4000, 1, 1, 0)), nullptr);
  EXPECT_EQ(p.find(block(0x4000, 1, 1, 0))->who, "first");
  EXPECT_EQ(p.find(block(0x4018, 1, 4, 0))->who, "second");
  EXPECT_EQ(p.find(block(0x403f, 1, 1, 0))->who, "first");
  EXPECT_EQ(p.find(block(0x4040, 1, 16, 0)), nullptr);
  // Many interleaved tiles: each row of a load is looked up on its own.
  pending_writes q;
  for (uint64_t t = 0; t < 64; ++t) // 64 tiles of 8 rows x 16 B, row stride 1024 B
    q.add(block(0x10000 + t * 16, 8, 16, 1024), {3, t, "gemm"});
  EXPECT_EQ(q.find(block(0x10000 + 5 * 16 + 3 * 1024, 1, 16, 0))->command, 5u);
  EXPECT_EQ(q.find(block(0x10000 + 8 * 1024, 1, 1024, 0)), nullptr); // the row after them
  q.clear(block(0x10000, 8, 1024, 1024)); // a store with data over them all
  EXPECT_TRUE(q.empty());
}

} // namespace
} // namespace kb::detail
