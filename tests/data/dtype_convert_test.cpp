// dtype conversions: f16 and bf16 round to nearest even, ints saturate.

#include "runtime/data/dtype_convert.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

namespace kb {
namespace {

constexpr float inf = std::numeric_limits<float>::infinity();

bool f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }

TEST(dtype_convert, every_f16_bit_pattern_round_trips_through_f32) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float f = f16_to_f32(bits);
    if (f16_is_nan(bits)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      // NaN comes back quiet with its payload: signalling ones gain bit 9.
      ASSERT_EQ(f32_to_f16(f), bits | 0x200) << std::hex << h;
    } else {
      ASSERT_EQ(f32_to_f16(f), bits) << std::hex << h;
    }
  }
}

TEST(dtype_convert, f16_halfway_values_round_to_the_even_neighbour) {
  // Between neighbours h and h+1 (subnormals and normals, both signs) the
  // midpoint is exact in f32; it goes to the even one, anything off it to the nearer.
  for (uint16_t h = 0; h < 0x7bff; ++h) {
    for (uint16_t sign : {uint16_t{0}, uint16_t{0x8000}}) {
      const float lo = f16_to_f32(static_cast<uint16_t>(h | sign));
      const float hi = f16_to_f32(static_cast<uint16_t>((h + 1) | sign));
      const float mid = (lo + hi) / 2;
      const uint16_t even = (h & 1) ? h + 1 : h;
      ASSERT_EQ(f32_to_f16(mid), even | sign) << std::hex << h;
      ASSERT_EQ(f32_to_f16(std::nextafter(mid, lo)), h | sign) << std::hex << h;
      ASSERT_EQ(f32_to_f16(std::nextafter(mid, hi)), (h + 1) | sign) << std::hex << h;
    }
  }
}

TEST(dtype_convert, f16_hand_values) {
  EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16(0.1f), 0x2e66); // 1.6 * 2^-4: mantissa 614.4 -> 614
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);        // the largest f16
  EXPECT_EQ(f32_to_f16(65519.996f), 0x7bff);      // below the halfway point
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);        // halfway, odd below: to inf
  EXPECT_EQ(f32_to_f16(1e10f), 0x7c00);
  EXPECT_EQ(f32_to_f16(-1e10f), 0xfc00);
  EXPECT_EQ(f32_to_f16(inf), 0x7c00);
  EXPECT_EQ(f32_to_f16(-inf), 0xfc00);
  EXPECT_EQ(f32_to_f16(0x1p-14f), 0x0400);        // the smallest normal
  EXPECT_EQ(f32_to_f16(0x1p-24f), 0x0001);        // the smallest subnormal
  EXPECT_EQ(f32_to_f16(0x1p-25f), 0x0000);        // halfway to it: ties to even 0
  EXPECT_EQ(f32_to_f16(0x1.8p-25f), 0x0001);
  EXPECT_EQ(f32_to_f16(0x1.ffcp-15f), 0x0400);    // the largest subnormal + half rounds up
  EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_f16(std::bit_cast<float>(0x7fc00000u)), 0x7e00);
  EXPECT_EQ(f32_to_f16(std::bit_cast<float>(0x7f800001u)), 0x7e00); // a low-payload NaN stays NaN
  EXPECT_EQ(f16_to_f32(0x0001), 0x1p-24f);
  EXPECT_EQ(f16_to_f32(0x3555), 0.333251953125f);
  EXPECT_EQ(f16_to_f32(0x7c00), inf);
  EXPECT_TRUE(std::signbit(f16_to_f32(0x8000)));
}

TEST(dtype_convert, bf16_rounds_to_nearest_even_and_keeps_nan) {
  auto b = [](uint32_t bits) { return f32_to_bf16(std::bit_cast<float>(bits)); };
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(b(0x3f808000u), 0x3f80); // tie, even below
  EXPECT_EQ(b(0x3f818000u), 0x3f82); // tie, odd below: up
  EXPECT_EQ(b(0x3f808001u), 0x3f81); // above the tie
  EXPECT_EQ(b(0x3f807fffu), 0x3f80);
  EXPECT_EQ(b(0x7f7fffffu), 0x7f80); // the largest f32 rounds to inf
  EXPECT_EQ(b(0x7f800001u), 0x7fc0); // would round to inf: quieted instead
  EXPECT_EQ(b(0xff800001u), 0xffc0);
  EXPECT_EQ(b(0x7fc00001u), 0x7fc0);
  EXPECT_EQ(bf16_to_f32(0xc040), -3.0f);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float f = bf16_to_f32(bits);
    if (std::isnan(f))
      ASSERT_EQ(f32_to_bf16(f), bits | 0x40) << std::hex << h;
    else
      ASSERT_EQ(f32_to_bf16(f), bits) << std::hex << h;
  }
}

TEST(dtype_convert, ints_round_half_to_even_saturate_and_map_nan_to_zero) {
  EXPECT_EQ(f32_to_i8(2.5f), 2);
  EXPECT_EQ(f32_to_i8(3.5f), 4);
  EXPECT_EQ(f32_to_i8(-2.5f), -2);
  EXPECT_EQ(f32_to_i8(-2.6f), -3);
  EXPECT_EQ(f32_to_i8(127.4f), 127);
  EXPECT_EQ(f32_to_i8(127.5f), 127); // rounds to 128, saturates
  EXPECT_EQ(f32_to_i8(1000.0f), 127);
  EXPECT_EQ(f32_to_i8(-128.5f), -128);
  EXPECT_EQ(f32_to_i8(-1000.0f), -128);
  EXPECT_EQ(f32_to_i8(inf), 127);
  EXPECT_EQ(f32_to_i8(-inf), -128);
  EXPECT_EQ(f32_to_i8(std::nanf("")), 0);
  EXPECT_EQ(f32_to_i32(0.5f), 0);
  EXPECT_EQ(f32_to_i32(1.5f), 2);
  EXPECT_EQ(f32_to_i32(-1.5f), -2);
  EXPECT_EQ(f32_to_i32(2147483520.0f), 2147483520); // the largest f32 below 2^31
  EXPECT_EQ(f32_to_i32(2147483648.0f), 2147483647);
  EXPECT_EQ(f32_to_i32(-2147483648.0f), -2147483647 - 1);
  EXPECT_EQ(f32_to_i32(-3e9f), -2147483647 - 1);
  EXPECT_EQ(f32_to_i32(std::nanf("")), 0);
}

TEST(dtype_convert, array_conversion_of_f16_gives_the_scalar_bits) {
  // decode_f32/encode_f32 may use F16C; they must agree with the scalar
  // functions on every f16 and on a sweep of f32 bit patterns (NaNs too).
  std::vector<uint8_t> all(2 * 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    all[2 * h] = static_cast<uint8_t>(h);
    all[2 * h + 1] = static_cast<uint8_t>(h >> 8);
  }
  std::vector<float> f(65536);
  decode_f32(dtype::f16, all, f);
  for (uint32_t h = 0; h < 65536; ++h)
    ASSERT_EQ(std::bit_cast<uint32_t>(f[h]), std::bit_cast<uint32_t>(f16_to_f32(static_cast<uint16_t>(h))))
      << std::hex << h;
  std::vector<float> sweep;
  for (uint64_t x = 0; x <= 0xffffffffu; x += 251)
    sweep.push_back(std::bit_cast<float>(static_cast<uint32_t>(x)));
  for (uint32_t x : {0x7f800001u, 0x7fc00000u, 0xffbfffffu, 0x477ff000u, 0x477fefffu, 0x33000000u,
                     0x33000001u, 0x387fe000u, 0x387ff000u})
    sweep.push_back(std::bit_cast<float>(x));
  std::vector<uint8_t> enc(2 * sweep.size());
  encode_f32(dtype::f16, sweep, enc);
  for (size_t i = 0; i < sweep.size(); ++i)
    ASSERT_EQ(enc[2 * i] | enc[2 * i + 1] << 8, f32_to_f16(sweep[i]))
      << std::hex << std::bit_cast<uint32_t>(sweep[i]);
  std::printf("f16 arrays convert with F16C: %s\n", f16_hardware_conversion() ? "yes" : "no");
}

TEST(dtype_convert, encode_and_decode_are_little_endian_and_check_sizes) {
  const std::vector<float> v{1.0f, -2.0f};
  std::vector<uint8_t> f16(4), bf16(4), i8(2), i32(8);
  encode_f32(dtype::f16, v, f16);
  encode_f32(dtype::bf16, v, bf16);
  encode_f32(dtype::i8, v, i8);
  encode_f32(dtype::i32, v, i32);
  EXPECT_EQ(f16, (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0xc0}));
  EXPECT_EQ(bf16, (std::vector<uint8_t>{0x80, 0x3f, 0x00, 0xc0}));
  EXPECT_EQ(i8, (std::vector<uint8_t>{0x01, 0xfe}));
  EXPECT_EQ(i32, (std::vector<uint8_t>{1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff}));
  std::vector<float> back(2);
  for (auto [t, bytes] : {std::pair{dtype::f16, f16}, {dtype::bf16, bf16}, {dtype::i8, i8},
                          {dtype::i32, i32}}) {
    decode_f32(t, bytes, back);
    EXPECT_EQ(back, v) << to_string(t);
  }
  EXPECT_THROW(encode_f32(dtype::f16, v, i32), std::invalid_argument);
  EXPECT_THROW(decode_f32(dtype::i32, i8, back), std::invalid_argument);
}

} // namespace
} // namespace kb
