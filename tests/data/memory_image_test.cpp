// memory_image: sparse, paged, zero where never written; strided rows.

#include "runtime/data/memory_image.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

namespace kb {
namespace {

TEST(memory_image, never_written_bytes_read_as_zero_and_take_no_pages) {
  memory_image m;
  EXPECT_EQ(m.read(0x1234'5678'9000, 16), std::vector<uint8_t>(16, 0));
  EXPECT_EQ(m.pages(), 0u);
}

TEST(memory_image, a_write_across_a_page_boundary_reads_back_whole) {
  memory_image m;
  std::vector<uint8_t> data(100);
  std::iota(data.begin(), data.end(), 1);
  const uint64_t at = 3 * memory_image::page_bytes - 40; // 40 bytes in page 2, 60 in page 3
  m.write(at, data);
  EXPECT_EQ(m.pages(), 2u);
  EXPECT_EQ(m.read(at, 100), data);
  EXPECT_EQ(m.read(at - 1, 1), std::vector<uint8_t>{0});
  EXPECT_EQ(m.read(at + 100, 1), std::vector<uint8_t>{0});
}

TEST(memory_image, strided_rows_land_stride_apart_and_pack_back) {
  memory_image m;
  const std::vector<uint8_t> packed{1, 2, 3, 4, 5, 6}; // 3 rows of 2 bytes
  m.write_rows(1000, 10, 3, 2, packed);
  EXPECT_EQ(m.read(1000, 2), (std::vector<uint8_t>{1, 2}));
  EXPECT_EQ(m.read(1010, 2), (std::vector<uint8_t>{3, 4}));
  EXPECT_EQ(m.read(1020, 2), (std::vector<uint8_t>{5, 6}));
  EXPECT_EQ(m.read(1002, 8), std::vector<uint8_t>(8, 0));
  std::vector<uint8_t> back(6);
  m.read_rows(1000, 10, 3, 2, back);
  EXPECT_EQ(back, packed);
  EXPECT_THROW(m.write_rows(0, 10, 3, 2, std::vector<uint8_t>(5)), std::invalid_argument);
}

TEST(memory_image, a_copy_is_deep_and_equality_ignores_zero_pages) {
  memory_image a;
  a.write(5, std::vector<uint8_t>{7});
  memory_image b = a;
  EXPECT_EQ(a, b);
  b.write(5, std::vector<uint8_t>{8});
  EXPECT_EQ(a.read(5, 1), std::vector<uint8_t>{7});
  EXPECT_FALSE(a == b);
  memory_image zeroed;
  zeroed.write(1 << 20, std::vector<uint8_t>(4, 0)); // a page of zeros
  EXPECT_EQ(zeroed, memory_image{});
}

TEST(memory_image, an_access_past_the_end_of_the_address_space_is_refused) {
  memory_image m;
  EXPECT_THROW(m.write(~uint64_t{0} - 2, std::vector<uint8_t>(8)), std::out_of_range);
  EXPECT_NO_THROW(m.write(~uint64_t{0} - 7, std::vector<uint8_t>(8)));
}

TEST(memory_image, touch_creates_the_pages_of_a_range_and_changes_no_byte) {
  memory_image m;
  m.write(10, std::vector<uint8_t>{9});
  const memory_image before = m;
  // Bytes 100 .. page_bytes + 100 span pages 0 and 1.
  m.touch(100, memory_image::page_bytes + 1);
  EXPECT_EQ(m.pages(), 2u);
  EXPECT_EQ(m, before);
  EXPECT_EQ(m.read(10, 1), std::vector<uint8_t>{9});
  m.touch(5 * memory_image::page_bytes, 0);
  EXPECT_EQ(m.pages(), 2u);
  EXPECT_THROW(m.touch(~uint64_t{0}, 2), std::out_of_range);
}

} // namespace
} // namespace kb
