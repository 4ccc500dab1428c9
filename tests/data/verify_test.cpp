// Verification: D11 tolerances in allclose form, and one-line descriptions.

#include "runtime/data/verify.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace kb {
namespace {

const float nan = std::numeric_limits<float>::quiet_NaN();
constexpr float inf = std::numeric_limits<float>::infinity();

TEST(verify, tolerances_follow_d11) {
  EXPECT_EQ(tolerance_for(dtype::f32).rtol, 1e-5);
  EXPECT_EQ(tolerance_for(dtype::f16).atol, 1e-3);
  EXPECT_EQ(tolerance_for(dtype::bf16).rtol, 1e-2);
  EXPECT_TRUE(tolerance_for(dtype::i8).exact);
  EXPECT_TRUE(tolerance_for(dtype::i32).exact);
  EXPECT_FALSE(tolerance_for(dtype::f16).exact);
}

TEST(verify, the_first_mismatch_and_the_count_are_described_in_one_line) {
  std::vector<double> got(4096, 1.5);
  std::vector<float> want(4096, 1.5f);
  got[3 * 64 + 17] = 1.25;
  for (int i = 0; i < 11; ++i)
    got[1000 + i] = 2.0;
  const auto r = compare(got, want, 64, 64, dtype::f16, "c");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 12u);
  EXPECT_EQ(r.max_abs_error, 0.5);
  EXPECT_EQ(r.first.row, 3u);
  EXPECT_EQ(r.first.col, 17u);
  EXPECT_EQ(r.describe(),
            "c[3,17] = 1.25, expected 1.5 (f16: |diff| 0.25 > 0.0025); 12 of 4096 elements differ");
}

TEST(verify, the_bound_is_atol_plus_rtol_times_expected) {
  // bf16: 0.01 + 0.01 * 0 at expected 0; the float nearest 0.01 is just below it.
  EXPECT_TRUE(compare(std::vector<double>{0.01f}, std::vector<float>{0}, 1, 1, dtype::bf16).ok);
  EXPECT_FALSE(compare(std::vector<double>{std::nextafter(0.01f, 1.0f)}, std::vector<float>{0}, 1,
                       1, dtype::bf16)
                 .ok);
  // f32 at expected 1000: bound 1e-5 + 1e-2.
  EXPECT_TRUE(compare(std::vector<double>{1000.0078125}, std::vector<float>{1000}, 1, 1, dtype::f32).ok);
  EXPECT_FALSE(compare(std::vector<double>{1000.015625}, std::vector<float>{1000}, 1, 1, dtype::f32).ok);
}

TEST(verify, nan_never_matches_and_infinities_match_only_themselves) {
  const auto r = compare(std::vector<double>{1, nan, inf, -inf}, std::vector<float>{1, nan, inf, inf},
                         2, 2, dtype::f32, "x");
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_TRUE(std::isnan(r.max_abs_error));
  EXPECT_EQ(r.describe(), "x[0,1] = nan, expected nan (f32: NaN never matches); 2 of 4 elements differ");
  const auto i = compare(std::vector<double>{inf}, std::vector<float>{-inf}, 1, 1, dtype::f16, "y");
  EXPECT_EQ(i.describe(),
            "y[0,0] = inf, expected -inf (f16: infinities match only themselves); 1 of 1 elements differ");
}

TEST(verify, tensors_of_an_image_compare_and_ints_compare_exactly) {
  memory_image m;
  const tensor_view v = packed_view(0, 2, 2, dtype::f32);
  store_f32(m, v, std::vector<float>{1, 2, 3, 4});
  const auto ok = verify(m, v, std::vector<float>{1, 2, 3, 4.00001f}, "c");
  EXPECT_TRUE(ok.ok);
  // The float nearest 4.00001 is 4 + 21 * 2^-21 = 4.0000100136.
  EXPECT_EQ(ok.describe(), "c: all 4 elements match (f32, max |diff| 1.00136e-05)");
  // 2^24 + 1 is not an f32: an exact int compare still sees it differ from 2^24.
  const int32_t big = 16777217;
  m.write(64, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&big), 4));
  const auto r = verify(m, packed_view(64, 1, 1, dtype::i32), std::vector<float>{16777216.0f}, "v");
  EXPECT_EQ(r.describe(), "v[0,0] = 16777217, expected 16777216 (i32: exact); 1 of 1 elements differ");
  EXPECT_THROW(verify(m, v, std::vector<float>{1, 2}), std::invalid_argument);
}

} // namespace
} // namespace kb
