// Verification: the D11 tolerances with the absolute part scaled to the
// tensor (|got - exp| <= rtol |exp| + atol_factor max(scale, floor)), the
// reference rounded to the output's dtype first, and one-line descriptions.
// Bounds below are worked out by hand from that rule.

#include "runtime/data/verify.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace kb {
namespace {

const double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

using values = std::vector<double>;

verify_result cmp(const values& got, const values& exp, dtype t,
                  std::optional<tolerance> tol = std::nullopt) {
  return compare(got, exp, 1, static_cast<uint32_t>(got.size()), t, "x", tol);
}

TEST(verify, tolerances_follow_d11) {
  EXPECT_EQ(tolerance_for(dtype::f32).rtol, 1e-5);
  EXPECT_EQ(tolerance_for(dtype::f32).atol_factor, 1e-5);
  EXPECT_EQ(tolerance_for(dtype::f16).atol_factor, 1e-3);
  EXPECT_EQ(tolerance_for(dtype::bf16).rtol, 1e-2);
  EXPECT_TRUE(tolerance_for(dtype::i8).exact);
  EXPECT_TRUE(tolerance_for(dtype::i32).exact);
  EXPECT_FALSE(tolerance_for(dtype::f16).exact);
  EXPECT_EQ(tolerance_floor(dtype::f16), 0x1p-14);
  EXPECT_EQ(tolerance_floor(dtype::f32), 0x1p-126);
  EXPECT_EQ(tolerance_floor(dtype::bf16), 0x1p-126);
}

TEST(verify, the_first_mismatch_and_its_tolerance_are_described_in_one_line) {
  std::vector<double> got(4096, 1.5);
  std::vector<double> want(4096, 1.5);
  got[3 * 64 + 17] = 1.25;
  for (int i = 0; i < 11; ++i)
    got[1000 + i] = 2.0;
  const auto r = compare(got, want, 64, 64, dtype::f16, "c");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 12u);
  EXPECT_EQ(r.max_abs_error, 0.5);
  EXPECT_EQ(r.first.row, 3u);
  EXPECT_EQ(r.first.col, 17u);
  // scale 1.5: atol = 1e-3 x 1.5; at 1.5 the bound is 1e-3 x 1.5 + 0.0015.
  EXPECT_EQ(r.describe(), "c[3,17] = 1.25, expected 1.5 (f16: |diff| 0.25 > 0.003 = 0.001 x "
                          "|expected| + atol 0.0015); 12 of 4096 elements differ");
}

TEST(verify, f32_bounds_just_inside_and_just_outside) {
  // Expected {1024, 0}: scale 1024, atol = 1e-5 x 1024 = 0.01024.
  // At 1024 the bound is 0.01024 + 0.01024 = 0.02048; at 0 it is 0.01024.
  const values exp{1024, 0};
  EXPECT_TRUE(cmp({1024 + 0.01953125, 0}, exp, dtype::f32).ok);     // 0.0195 <= 0.02048
  EXPECT_FALSE(cmp({1024 + 0.0205078125, 0}, exp, dtype::f32).ok);  // 0.02051 > 0.02048
  EXPECT_TRUE(cmp({1024, 0.0102}, exp, dtype::f32).ok);             // 0.0102 <= 0.01024
  const auto out = cmp({1024, 0.0103}, exp, dtype::f32);            // 0.0103 > 0.01024
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.first.col, 1u);
  EXPECT_DOUBLE_EQ(out.atol, 0.01024);
  EXPECT_EQ(out.scale, 1024);
}

TEST(verify, softmax_sized_values_get_a_tolerance_of_their_own_size) {
  // bf16, expected {2^-9, 2^-20}: scale 2^-9, atol = 1e-2 x 2^-9 = 1.953125e-5.
  // At 2^-20 the bound is 1e-2 x 2^-20 + 1.953125e-5 = 1.9540787e-5.
  const values exp{0x1p-9, 0x1p-20};
  EXPECT_TRUE(cmp({0x1p-9, 0x1p-20 + 1.95e-5}, exp, dtype::bf16).ok);
  EXPECT_FALSE(cmp({0x1p-9, 0x1p-20 + 1.96e-5}, exp, dtype::bf16).ok);
  // 1/2048 everywhere is far outside (the old absolute 1e-2 let it pass).
  const auto r = cmp({1.0 / 2048, 1.0 / 2048}, exp, dtype::bf16);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.first.col, 0u); // 2^-11 vs 2^-9: |diff| 1.46e-3 > 3.9e-5
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.describe(), "x[0,0] = 0.00048828125, expected 0.001953125 (bf16: |diff| 0.00146484 > "
                          "3.90625e-05 = 0.01 x |expected| + atol 1.95313e-05); 2 of 2 elements "
                          "differ");
}

TEST(verify, an_all_zero_expected_tensor_is_held_to_the_floor) {
  // f16: scale 0, so atol = 1e-3 x 2^-14 = 6.1e-8: the smallest f16
  // subnormal (2^-24 = 5.96e-8) passes, twice it does not.
  const values zeros{0, 0, 0};
  EXPECT_TRUE(cmp({0, 0, 0}, zeros, dtype::f16).ok);
  EXPECT_TRUE(cmp({0, 0x1p-24, 0}, zeros, dtype::f16).ok);
  EXPECT_FALSE(cmp({0, 0x1p-23, 0}, zeros, dtype::f16).ok);
  // f32: 1e-5 x 2^-126; any normal number is out.
  EXPECT_FALSE(cmp({0, 0x1p-126, 0}, zeros, dtype::f32).ok);
  EXPECT_TRUE(cmp({0, -0.0, 0}, zeros, dtype::f32).ok);
}

TEST(verify, nan_never_matches_and_infinities_match_only_themselves) {
  const auto r = compare(values{1, nan, inf, -inf}, values{1, nan, inf, inf}, 2, 2, dtype::f32, "x");
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_TRUE(std::isnan(r.max_abs_error));
  EXPECT_EQ(r.describe(), "x[0,1] = nan, expected nan (f32: NaN never matches); 2 of 4 elements differ");
  const auto i = compare(values{inf}, values{-inf}, 1, 1, dtype::f16, "y");
  EXPECT_EQ(i.describe(),
            "y[0,0] = inf, expected -inf (f16: infinities match only themselves); 1 of 1 elements differ");
  // Infinities are left out of the scale: 1 +- 1e-5 x (1 + 1) still decides.
  EXPECT_TRUE(cmp({inf, 1 + 1.9e-5}, {inf, 1}, dtype::f32).ok);
  EXPECT_FALSE(cmp({inf, 1 + 2.1e-5}, {inf, 1}, dtype::f32).ok);
}

TEST(verify, the_reference_is_rounded_to_the_output_dtype_as_a_store_does) {
  // 0.1 as f16 is 0.0999755859375: a store of the right value leaves exactly that.
  const auto r = cmp({0.0999755859375}, {0.1}, dtype::f16);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.max_abs_error, 0.0);
  // 1e5 overflows f16: the store gives inf, and inf is what is expected.
  EXPECT_TRUE(cmp({inf}, {1e5}, dtype::f16).ok);
  EXPECT_FALSE(cmp({65504}, {1e5}, dtype::f16).ok);
  // Integers round to nearest even and NaN stores as 0.
  EXPECT_TRUE(cmp({2, 4, 0}, {2.5, 3.5, nan}, dtype::i32).ok);
  EXPECT_FALSE(cmp({3}, {2.5}, dtype::i32).ok);
  const auto d = cmp({0.5}, {0.1}, dtype::f16);
  EXPECT_EQ(d.describe(), "x[0,0] = 0.5, expected 0.0999755859 (the reference 0.1 as f16) (f16: "
                          "|diff| 0.400024 > 0.000199951 = 0.001 x |expected| + atol 9.99756e-05); "
                          "1 of 1 elements differ");
}

TEST(verify, a_reference_beyond_i32_is_an_overflow_and_an_i8_output_saturates) {
  const auto r = compare(values{5, -2147483648.0, 7}, values{5, 2147483648.0, 3e10}, 1, 3,
                         dtype::i32, "c");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.overflows, 2u);
  EXPECT_TRUE(r.first.overflow);
  EXPECT_EQ(r.describe(), "c[0,1] = -2147483648, expected 2147483647 (the reference 2147483648 "
                          "overflows the output dtype i32 at [0,1]); 2 of 3 elements differ (2 "
                          "reference values overflow i32)");
  // An i8 output's store saturates the i32 accumulator: so does the
  // reference, and 300 is expected as 127 (and 126 is then wrong).
  EXPECT_TRUE(cmp({127, -128}, {300, -1000}, dtype::i8).ok);
  const auto i8 = cmp({126}, {300}, dtype::i8);
  EXPECT_FALSE(i8.ok);
  EXPECT_EQ(i8.overflows, 0u);
  EXPECT_EQ(i8.first.expected, 127);
}

TEST(verify, an_output_may_carry_its_own_tolerance) {
  // 5% off: out of f32's tolerance, inside rtol 0.1.
  EXPECT_FALSE(cmp({1.05}, {1}, dtype::f32).ok);
  EXPECT_TRUE(cmp({1.05}, {1}, dtype::f32, tolerance{0.1, 0, false}).ok);
  EXPECT_FALSE(cmp({1.15}, {1}, dtype::f32, tolerance{0.1, 0, false}).ok);
  // An atol factor of 0.5 over a scale of 2: 1.0 of slack at 0.
  EXPECT_TRUE(cmp({2, 0.99}, {2, 0}, dtype::f32, tolerance{0, 0.5, false}).ok);
  EXPECT_FALSE(cmp({2, 1.01}, {2, 0}, dtype::f32, tolerance{0, 0.5, false}).ok);
}

TEST(verify, tensors_of_an_image_compare_and_ints_compare_exactly) {
  memory_image m;
  const tensor_view v = packed_view(0, 2, 2, dtype::f32);
  store_f32(m, v, std::vector<float>{1, 2, 3, 4});
  const auto ok = verify(m, v, values{1, 2, 3, 4.00001}, "c");
  EXPECT_TRUE(ok.ok);
  // 4.00001 as an f32 is 4 + 21 * 2^-21 = 4.0000100136.
  EXPECT_EQ(ok.describe(), "c: all 4 elements match (f32, max |diff| 1.00136e-05)");
  // 2^24 + 1 is not an f32: an exact int compare still sees it differ from 2^24.
  const int32_t big = 16777217;
  m.write(64, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&big), 4));
  const auto r = verify(m, packed_view(64, 1, 1, dtype::i32), values{16777216.0}, "v");
  EXPECT_EQ(r.describe(), "v[0,0] = 16777217, expected 16777216 (i32: exact); 1 of 1 elements differ");
  EXPECT_TRUE(verify(m, packed_view(64, 1, 1, dtype::i32), values{16777217.0}, "v").ok);
  EXPECT_THROW(verify(m, v, values{1, 2}), std::invalid_argument);
}

} // namespace
} // namespace kb
