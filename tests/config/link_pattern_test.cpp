// Link endpoint patterns: what each '*' captures (the shortest run that lets
// the rest match, never across a '.'), and no exponential search on many
// stars (a fuzzed topology with 94 stars in one endpoint ran for minutes).

#include "runtime/config/detail/link_pattern.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kb::detail {
namespace {

using caps = std::vector<std::string>;

TEST(link_pattern, each_star_captures_its_shortest_run) {
  EXPECT_EQ(match_pattern("pe*.pe_dma", "pe12.pe_dma"), caps{"12"});
  EXPECT_EQ(match_pattern("*", ""), caps{""});
  EXPECT_EQ(match_pattern("a*b*c", "aXbYbZc"), (caps{"X", "YbZ"}));
  EXPECT_EQ(match_pattern("**x", "abx"), (caps{"", "ab"}));
  EXPECT_EQ(match_pattern("cube*.pe*", "cube3.pe0"), (caps{"3", "0"}));
  EXPECT_EQ(match_pattern("noc", "noc"), caps{});
}

TEST(link_pattern, a_star_never_crosses_a_dot) {
  EXPECT_EQ(match_pattern("*", "a.b"), std::nullopt);
  EXPECT_EQ(match_pattern("pe*", "pe1.pe_dma"), std::nullopt);
  EXPECT_EQ(match_pattern("*.*", "a.b"), (caps{"a", "b"}));
  EXPECT_EQ(match_pattern("noc", "nod"), std::nullopt);
  EXPECT_EQ(match_pattern("noc", "noc2"), std::nullopt);
}

TEST(link_pattern, many_stars_match_in_polynomial_time) {
  const std::string stars(100, '*');
  const auto m = match_pattern("sip1." + stars + "cube0.noc", "sip1.xcube0.noc");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->size(), 100u);
  EXPECT_EQ(m->front(), ""); // shortest first: the last star takes the x
  EXPECT_EQ(m->back(), "x");
  // The classic exponential case for a backtracking matcher: it fails.
  std::string p = "a";
  for (int i = 0; i < 60; ++i)
    p += "*a";
  p += "b";
  EXPECT_EQ(match_pattern(p, std::string(200, 'a')), std::nullopt);
  EXPECT_EQ(substitute("pe*.x*", {"3", "y"}), "pe3.xy");
}

} // namespace
} // namespace kb::detail
