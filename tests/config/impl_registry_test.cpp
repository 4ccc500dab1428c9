// The component registry file and its errors.

#include <gtest/gtest.h>

#include "runtime/config/impl_registry.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

using test::config_error_of;
using test::data_path;

TEST(impl_registry, default_file_maps_impls_to_kinds) {
  const impl_registry reg = test::default_registry();
  EXPECT_EQ(reg.size(), 14u);
  const impl_entry* gemm = reg.find("pe_gemm_v1");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, "pe_gemm");
  EXPECT_EQ(gemm->description,
            "MAC array: ceil(ceil(tm/R)*ceil(tn/C)*tk / rate) + R + C cycles per tile");
  EXPECT_EQ(gemm->where.line,
            test::line_containing(test::config_path("components.yaml"),
                                  "pe_gemm_v1:"));
  EXPECT_NE(gemm->where.line, 0u);
  ASSERT_NE(reg.find("hbm_ctrl_v1"), nullptr);
  EXPECT_EQ(reg.find("hbm_ctrl_v1")->kind, "hbm_ctrl");
  EXPECT_EQ(reg.of_kind("hbm_ctrl").size(), 2u); // aggregated and per channel
  EXPECT_EQ(reg.find("pe_gemm_v9"), nullptr);
  const auto mmu = reg.of_kind("pe_mmu");
  ASSERT_EQ(mmu.size(), 1u);
  EXPECT_EQ(mmu[0]->impl, "pe_mmu_passthrough");
}

TEST(impl_registry, duplicate_impl_is_an_error) {
  const std::string f = data_path("reg_duplicate_impl.yaml");
  EXPECT_EQ(config_error_of([&] { load_impl_registry(f); }),
            f +
                ":4: impls.pe_gemm_v1: duplicate impl 'pe_gemm_v1' (first "
                "declared at " +
                f + ":2)");
}

TEST(impl_registry, missing_kind_is_an_error) {
  const std::string f = data_path("reg_missing_kind.yaml");
  EXPECT_EQ(config_error_of([&] { load_impl_registry(f); }),
            f + ":3: impls.pe_math_v1: missing required key 'kind'");
}

TEST(impl_registry, entry_that_is_not_a_map_is_an_error) {
  const std::string f = data_path("reg_malformed_entry.yaml");
  EXPECT_EQ(config_error_of([&] { load_impl_registry(f); }),
            f + ":3: impls.pe_math_v1: expected a map, got 'pe_math'");
}

TEST(impl_registry, unknown_entry_key_is_an_error) {
  const std::string f = data_path("reg_unknown_key.yaml");
  EXPECT_EQ(config_error_of([&] { load_impl_registry(f); }),
            f + ":2: impls.pe_gemm_v1.descripton: unknown key 'descripton' "
                "(allowed: description, kind)");
}

TEST(impl_registry, add_rejects_names_that_are_not_plain) {
  impl_registry reg;
  EXPECT_EQ(config_error_of([&] {
              reg.add({"a.b", "k", "", {"r.yaml", 5}});
            }),
            "r.yaml:5: impls.a.b: invalid impl name 'a.b' (letters, digits and "
            "'_' only)");
  EXPECT_EQ(reg.size(), 0u);
}

} // namespace
} // namespace kb
