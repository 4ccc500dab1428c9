// Generated ranges of a memory_image (docs/adr/0028): bytes never written
// read as their source makes them, reads make no page, a write makes its
// page from the range first, copies keep the ranges; and the seeded random
// input stream that fills them gives the same bytes for any slice.

#include "runtime/data/dtype_convert.hpp"
#include "runtime/data/memory_image.hpp"
#include "runtime/data/random_input.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

namespace kb {
namespace {

/// Byte i of the source is (i * 7 + 3) mod 251.
std::shared_ptr<const memory_image::byte_source> counting() {
  return std::make_shared<const memory_image::byte_source>(
    [](uint64_t first, std::span<uint8_t> out) {
      for (size_t j = 0; j < out.size(); ++j)
        out[j] = static_cast<uint8_t>(((first + j) * 7 + 3) % 251);
    });
}

uint8_t expected(uint64_t i) { return static_cast<uint8_t>((i * 7 + 3) % 251); }

TEST(generated_range, reads_make_the_bytes_without_pages) {
  memory_image m;
  const uint64_t at = memory_image::page_bytes - 10; // spans pages 0 and 1
  m.generate(at, 100, counting(), 1000);
  const auto got = m.read(at - 2, 104);
  EXPECT_EQ(got[0], 0); // before the range: zero
  EXPECT_EQ(got[1], 0);
  for (uint64_t i = 0; i < 100; ++i)
    ASSERT_EQ(got[2 + i], expected(1000 + i)) << i;
  EXPECT_EQ(got[102], 0); // after it
  EXPECT_EQ(m.pages(), 0u);
}

TEST(generated_range, a_write_makes_its_page_from_the_range_first) {
  memory_image m;
  m.generate(0, 300, counting());
  const std::vector<uint8_t> one{0xAA};
  m.write(100, one);
  EXPECT_EQ(m.pages(), 1u);
  const auto got = m.read(0, 300);
  for (uint64_t i = 0; i < 300; ++i)
    ASSERT_EQ(got[i], i == 100 ? 0xAA : expected(i)) << i;
  // A copy keeps the range and the page; equal contents compare equal.
  memory_image copy = m;
  EXPECT_EQ(copy.read(0, 300), got);
  EXPECT_TRUE(copy == m);
  memory_image plain;
  plain.write(0, got);
  EXPECT_TRUE(plain == m);
  plain.write(299, one);
  EXPECT_FALSE(plain == m);
  // materialize makes every page of it; the bytes stay.
  memory_image all = m;
  all.materialize();
  EXPECT_EQ(all.pages(), 1u);
  EXPECT_EQ(all.read(0, 300), got);
}

TEST(generated_range, a_page_written_before_gets_the_ranges_bytes) {
  memory_image m;
  const std::vector<uint8_t> one{0x55};
  m.write(10, one); // page 0 exists
  m.generate(64, 64, counting());
  EXPECT_EQ(m.read(10, 1), one);
  EXPECT_EQ(m.read(64, 1), std::vector<uint8_t>{expected(0)});
  EXPECT_EQ(m.read(127, 1), std::vector<uint8_t>{expected(63)});
}

TEST(generated_range, overlapping_ranges_are_refused) {
  memory_image m;
  m.generate(100, 100, counting());
  EXPECT_THROW(m.generate(150, 100, counting()), std::invalid_argument);
  EXPECT_THROW(m.generate(50, 51, counting()), std::invalid_argument);
  EXPECT_NO_THROW(m.generate(200, 10, counting()));
  EXPECT_NO_THROW(m.generate(0, 100, counting()));
}

TEST(random_input_stream, any_slice_of_bytes_is_the_same_as_the_whole) {
  for (dtype t : {dtype::f16, dtype::bf16, dtype::f32, dtype::i8}) {
    const random_input_stream s(7, 2, -1, 1);
    const uint32_t e = dtype_bytes(t);
    const uint64_t n = 10000;
    std::vector<uint8_t> whole(n * e);
    s.fill_bytes(t, 0, whole);
    // The same values as encode_f64 of the floats (the --verify path).
    std::vector<double> values(n);
    for (uint64_t i = 0; i < n; ++i)
      values[i] = s.at(i);
    std::vector<uint8_t> encoded(n * e);
    encode_f64(t, values, encoded);
    EXPECT_EQ(whole, encoded) << to_string(t);
    for (const auto& [first, len] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 1}, {1, 3}, {3, 9000}, {4095, 4099}, {n * e - 5, 5}}) {
      std::vector<uint8_t> part(len);
      s.fill_bytes(t, first, part);
      EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + first))
        << to_string(t) << " at " << first;
    }
  }
}

TEST(random_input_stream, values_lie_in_range_and_differ_by_seed_and_input) {
  const random_input_stream a(1, 0, -2, 3), b(2, 0, -2, 3), c(1, 1, -2, 3);
  int same_b = 0, same_c = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    EXPECT_GE(a.at(i), -2.0f);
    EXPECT_LT(a.at(i), 3.0f);
    same_b += a.at(i) == b.at(i);
    same_c += a.at(i) == c.at(i);
  }
  EXPECT_LT(same_b, 5);
  EXPECT_LT(same_c, 5);
}

} // namespace
} // namespace kb
