// Where the host puts operands (runtime/host/placement): addresses derived
// from the rules in placement.hpp, and clear errors for regions that do not
// fit, are misaligned or overlap.

#include "runtime/host/placement.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t mib = uint64_t{1} << 20;

uint64_t hbm(uint32_t sip, uint32_t cube, uint64_t off) {
  return global_address{mem_space::hbm, sip, cube, 0, off}.encode();
}

const operand_sizes sizes{3 * 4096, 5 * 4096, 2 * 4096, {}}; // A, B, C

TEST(Placement, LocalPacksEachPeFromAMebibyteBoundary) {
  const auto at = place_operands({{0, 1, 0}, {0, 1, 1}}, sizes, placement::local, 1, 2);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[0].a, hbm(0, 1, 0));
  EXPECT_EQ(at[0].b, hbm(0, 1, 3 * 4096));
  EXPECT_EQ(at[0].c, hbm(0, 1, 8 * 4096));
  EXPECT_EQ(at[1].a, hbm(0, 1, mib)); // 10 pages used: the next MiB
  EXPECT_EQ(at[1].b, hbm(0, 1, mib + 3 * 4096));
}

TEST(Placement, RemoteCubePutsBInTheNeighbourOfTheMesh) {
  const auto at = place_operands({{1, 2, 0}, {1, 3, 0}}, sizes, placement::remote_cube, 2, 4);
  EXPECT_EQ(at[0].a, hbm(1, 2, 0));
  EXPECT_EQ(at[0].b, hbm(1, 3, 0)); // cube 2 XOR 1
  EXPECT_EQ(at[0].c, hbm(1, 2, 3 * 4096));
  EXPECT_EQ(at[1].b, hbm(1, 2, mib)); // cube 3 reads cube 2, after PE (1,2,0)'s A and C
}

TEST(Placement, RemoteSipReadsTheNextSipInARing) {
  const auto at = place_operands({{3, 1, 0}}, sizes, placement::remote_sip, 4, 4);
  EXPECT_EQ(at[0].b, hbm(0, 1, 0));
}

TEST(Placement, SramAndInterleaved) {
  const auto s = place_operands({{0, 0, 2}}, sizes, placement::sram, 1, 1);
  EXPECT_EQ(s[0].b, (global_address{mem_space::sram, 0, 0, 0, 0}.encode()));
  const auto i = place_operands({{0, 1, 2}}, sizes, placement::interleaved, 1, 4);
  EXPECT_EQ(i[0].a, hbm(0, 3, 0)); // (1 + 2 + 0) mod 4
  EXPECT_EQ(i[0].b, hbm(0, 0, 0));
  EXPECT_EQ(i[0].c, hbm(0, 1, 0));
}

TEST(Placement, MathHasNoB) {
  const auto at = place_operands({{0, 0, 0}}, operand_sizes{4096, 0, 4096, {}}, placement::remote_cube, 1, 2);
  EXPECT_EQ(at[0].b, 0u);
  EXPECT_EQ(at[0].c, hbm(0, 0, 4096));
}

TEST(Placement, MachinesThatCannotHostThePlacementAreRefused) {
  EXPECT_THROW(place_operands({{0, 0, 0}}, sizes, placement::remote_cube, 2, 1),
               std::invalid_argument);
  EXPECT_THROW(place_operands({{0, 0, 0}}, sizes, placement::remote_sip, 1, 4),
               std::invalid_argument);
  // Interleaving over one cube ran all-local without a word (issue 35).
  try {
    place_operands({{0, 0, 0}}, sizes, placement::interleaved, 2, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--placement interleaved: the machine has one cube per SIP (nothing "
                           "to interleave over; it would be --placement local)");
  }
  const uint64_t big = uint64_t{40} << 30; // two PEs' 40 GiB A do not fit in 64 GiB
  try {
    place_operands({{0, 0, 0}, {0, 0, 1}}, operand_sizes{big, 0, 0, {}}, placement::local, 1, 1);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("sip0.cube0.pe1 operand A"));
    EXPECT_THAT(e.what(), HasSubstr("sip0.cube0 hbm"));
  }
}

TEST(HostMemoryMap, MisalignedOverlappingAndOutOfRangeRegionsAreErrors) {
  host_memory_map m;
  m.reserve(hbm(0, 0, 0x10000), 0x1000, 4096, "x");
  try {
    m.reserve(hbm(0, 0, 0xf000), 0x2000, 4096, "y");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "y: [0xf000, 0x11000) in sip0.cube0 hbm overlaps x at 0x10000");
  }
  EXPECT_THROW(m.reserve(hbm(0, 0, 0x10800), 0x100, 4096, "z"), std::invalid_argument);
  EXPECT_THROW(m.reserve(hbm(0, 0, global_address::max_offset - 4095), 8192, 4096, "w"),
               std::invalid_argument);
  m.reserve(hbm(0, 1, 0xf000), 0x2000, 4096, "other cube"); // another memory: fine
  EXPECT_EQ(m.allocate(global_address{mem_space::hbm, 0, 0, 0, 0}, 4096, 4096, "next"),
            hbm(0, 0, 0x11000));
}

} // namespace
} // namespace kb
