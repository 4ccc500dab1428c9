// tensor_view: byte spans, validity, strided f32 loads and stores.

#include "runtime/data/tensor.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(tensor, byte_span_runs_from_the_first_element_to_past_the_last) {
  EXPECT_EQ(byte_span(packed_view(0x1000, 4, 8, dtype::f16)), (byte_range{0x1000, 0x1040}));
  // 3 rows of 4 f32, 64 bytes apart: 2 * 64 + 16 bytes.
  EXPECT_EQ(byte_span(tensor_view{100, 3, 4, 64, dtype::f32}), (byte_range{100, 244}));
  EXPECT_TRUE(byte_span(tensor_view{100, 0, 4, 64, dtype::f32}).empty());
  EXPECT_TRUE(byte_span(tensor_view{100, 3, 0, 64, dtype::f32}).empty());
  EXPECT_EQ(packed_view(0, 2, 3, dtype::i32).row_stride, 12u);
  EXPECT_TRUE(packed_view(0, 2, 3, dtype::i32).contiguous());
  EXPECT_FALSE((tensor_view{0, 2, 3, 16, dtype::i32}.contiguous()));
  EXPECT_TRUE((tensor_view{0, 1, 3, 0, dtype::i32}.contiguous()));
}

TEST(tensor, check_view_names_a_short_stride_and_a_wrap) {
  EXPECT_EQ(check_view(tensor_view{0, 2, 4, 8, dtype::f32}),
            "view 0x0 2x4 f32 stride 8: the row stride 8 is below the row size 16 bytes");
  EXPECT_EQ(check_view(tensor_view{0, 1, 4, 0, dtype::f32}), ""); // one row: stride unused
  EXPECT_EQ(check_view(tensor_view{~uint64_t{0} - 15, 1, 4, 16, dtype::f32}), ""); // ends at 2^64
  EXPECT_EQ(check_view(tensor_view{~uint64_t{0} - 14, 1, 4, 16, dtype::f32}),
            "view 0xfffffffffffffff1 1x4 f32 stride 16 runs past the end of the 64-bit "
            "address space");
  EXPECT_NE(check_view(tensor_view{0, 3, 1, uint64_t{1} << 63, dtype::i8}), "");
}

TEST(tensor, row_ranges_are_per_row_for_strided_views_up_to_a_limit) {
  const tensor_view even{0, 4, 4, 32, dtype::f32};
  EXPECT_EQ(row_ranges(even), (std::vector<byte_range>{{0, 16}, {32, 48}, {64, 80}, {96, 112}}));
  EXPECT_EQ(row_ranges(even, 3), (std::vector<byte_range>{{0, 112}}));
  EXPECT_EQ(row_ranges(packed_view(8, 4, 4, dtype::f32)), (std::vector<byte_range>{{8, 72}}));
  EXPECT_EQ(row_ranges(packed_view(8, 0, 4, dtype::f32)), (std::vector<byte_range>{}));
}

TEST(tensor, views_overlap_exactly_for_contiguous_and_same_stride_views) {
  const tensor_view p{0, 2, 16, 32, dtype::i8}; // rows [0,16) and [32,48)
  auto bytes = [](uint64_t at, uint32_t n) { return packed_view(at, 1, n, dtype::i8); };
  EXPECT_FALSE(views_overlap(p, bytes(16, 16))); // the gap
  EXPECT_TRUE(views_overlap(p, bytes(15, 2)));
  EXPECT_TRUE(views_overlap(bytes(47, 1), p));   // the last byte
  EXPECT_FALSE(views_overlap(p, bytes(48, 16)));
  EXPECT_TRUE(views_overlap(p, bytes(0, 100)));
  // Same stride: offset 16 interleaves; offset 24 with 10-byte rows reaches
  // into the next row of p (24 + 10 > 32); offset 40 meets p's second row.
  EXPECT_FALSE(views_overlap(p, tensor_view{16, 2, 16, 32, dtype::i8}));
  EXPECT_TRUE(views_overlap(p, tensor_view{24, 2, 10, 32, dtype::i8}));
  EXPECT_FALSE(views_overlap(p, tensor_view{24, 2, 8, 32, dtype::i8}));
  EXPECT_TRUE(views_overlap(tensor_view{40, 2, 4, 32, dtype::i8}, p));
  EXPECT_FALSE(views_overlap(p, tensor_view{0, 0, 16, 32, dtype::i8})); // empty
  // Different strides: row by row, or by span beyond the limit.
  const tensor_view q{16, 2, 16, 64, dtype::i8}; // rows [16,32) and [80,96)
  const tensor_view four{0, 4, 16, 32, dtype::i8};
  EXPECT_FALSE(views_overlap(four, q));
  EXPECT_TRUE(views_overlap(four, q, 1));
  EXPECT_TRUE(views_overlap(four, tensor_view{40, 2, 4, 48, dtype::i8}));
}

TEST(tensor, a_strided_f16_store_lands_row_by_row_and_loads_back) {
  memory_image m;
  const tensor_view v{0x10, 2, 2, 6, dtype::f16};
  store_f32(m, v, std::vector<float>{1.0f, 2.5f, -3.0f, 0.1f});
  EXPECT_EQ(m.read(0x10, 12),
            (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0x41, 0, 0, 0x00, 0xc2, 0x66, 0x2e, 0, 0}));
  // 0.1 is stored as f16 0x2e66 = 1.599609375 * 2^-4.
  EXPECT_EQ(load_f32(m, v), (std::vector<float>{1.0f, 2.5f, -3.0f, 0.0999755859375f}));
  EXPECT_EQ(load_bytes(m, v), (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0x41, 0x00, 0xc2, 0x66, 0x2e}));
  EXPECT_THROW(store_f32(m, v, std::vector<float>{1.0f}), std::invalid_argument);
}

TEST(tensor, f32_and_int_views_load_what_was_stored) {
  memory_image m;
  const tensor_view f{0, 2, 3, 16, dtype::f32};
  const std::vector<float> x{1, 2, 3, 4, 5, 6};
  store_f32(m, f, x);
  EXPECT_EQ(load_f32(m, f), x);
  EXPECT_EQ(m.read(12, 4), std::vector<uint8_t>(4, 0)); // the gap stays untouched
  const tensor_view i = packed_view(100, 1, 3, dtype::i8);
  store_f32(m, i, std::vector<float>{-1.5f, 200.0f, 0.5f});
  EXPECT_EQ(load_f32(m, i), (std::vector<float>{-2.0f, 127.0f, 0.0f}));
}

} // namespace
} // namespace kb
