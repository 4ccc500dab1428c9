// kind_catalog, resolve_params and the list-components text.

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/config/kind_doc.hpp"
#include "runtime/config/print_components.hpp"
#include "runtime/config/yaml_source.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

using test::config_error_of;
using ::testing::HasSubstr;

kind_doc math_doc() {
  return {"pe_math",
          "SIMD unit",
          {{"lanes", "uint", "64", "elements per cycle"},
           {"pipeline_cycles", "cycles", "4", "pipeline fill"},
           {"mode", "string", "", "required mode"}}};
}

param_reader component(const std::string& yaml) {
  return param_reader::root(load_yaml_text(yaml, "c.yaml"), "c.yaml")
      .map("pe_math");
}

TEST(kind_catalog, finds_kinds_and_lists_them_sorted) {
  kind_catalog c;
  c.add(math_doc());
  c.add({"hbm_ctrl", "HBM", {}});
  ASSERT_NE(c.find("pe_math"), nullptr);
  EXPECT_EQ(c.find("pe_math")->params.size(), 3u);
  EXPECT_EQ(c.find("pe_gemm"), nullptr);
  const auto all = c.all_sorted();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->kind, "hbm_ctrl");
  EXPECT_EQ(all[1]->kind, "pe_math");
}

TEST(kind_catalog, rejects_inconsistent_docs) {
  kind_catalog c;
  c.add(math_doc());
  EXPECT_THROW(c.add(math_doc()), std::invalid_argument); // duplicate kind
  EXPECT_THROW(c.add({"k", "", {{"x", "integer", "", ""}}}),
               std::invalid_argument); // unknown type
  EXPECT_THROW(c.add({"k", "", {{"delay", "ns", "1", ""}}}),
               std::invalid_argument); // ns key must end in _ns
  EXPECT_THROW(c.add({"k", "", {{"bw_gbps", "GB/s", "0", ""}}}),
               std::invalid_argument); // default is not a valid bandwidth
  EXPECT_THROW(c.add({"k", "", {{"n", "uint", "-1", ""}}}),
               std::invalid_argument);
  EXPECT_THROW(c.add({"k", "", {{"impl", "string", "", ""}}}),
               std::invalid_argument); // reserved
  EXPECT_THROW(c.add({"k", "", {{"a", "uint", "", ""}, {"a", "uint", "", ""}}}),
               std::invalid_argument);
  EXPECT_EQ(c.find("k"), nullptr);
}

TEST(resolve_params, fills_defaults_and_keeps_given_values) {
  const param_reader raw =
      component("pe_math:\n  impl: pe_math_v1\n  lanes: 128\n  mode: fast\n");
  const param_reader p = resolve_params(raw, math_doc(), {"impl", "kind"});
  EXPECT_EQ(p.required<uint64_t>("lanes"), 128u);
  EXPECT_EQ(p.required<Cycles>("pipeline_cycles"), Cycles{4});
  EXPECT_EQ(p.required<std::string>("mode"), "fast");
  EXPECT_FALSE(p.has("impl"));
  EXPECT_EQ(p.path(), "pe_math");
  // Errors raised later still point at the entry or the given key's line.
  EXPECT_EQ(p.error("lanes", "too many").what(),
            std::string("c.yaml:3: pe_math.lanes: too many"));
  EXPECT_EQ(p.error("pipeline_cycles", "bad").what(),
            std::string("c.yaml:1: pe_math.pipeline_cycles: bad"));
}

TEST(resolve_params, rejects_unknown_missing_and_mistyped_keys) {
  EXPECT_EQ(config_error_of([] {
              resolve_params(component("pe_math:\n  impl: x\n  mode: a\n  "
                                       "lane: 3\n"),
                             math_doc(), {"impl", "kind"});
            }),
            "c.yaml:4: pe_math.lane: unknown key 'lane' (allowed: impl, kind, "
            "lanes, mode, pipeline_cycles)");
  EXPECT_EQ(config_error_of([] {
              resolve_params(component("pe_math:\n  impl: x\n  lanes: 3\n"),
                             math_doc(), {"impl", "kind"});
            }),
            "c.yaml:1: pe_math: missing required key 'mode'");
  EXPECT_EQ(config_error_of([] {
              resolve_params(component("pe_math:\n  mode: a\n  lanes: wide\n"),
                             math_doc(), {});
            }),
            "c.yaml:3: pe_math.lanes: expected a non-negative integer, got "
            "'wide'");
}

TEST(print_components, lists_every_kind_with_impls_and_keys) {
  const kind_catalog kinds = test::test_catalog();
  impl_registry impls = test::default_registry();
  impls.add({"ucie_v1", "ucie", "die-to-die link", {"x.yaml", 3}});
  std::ostringstream out;
  print_components(out, kinds, impls);
  const std::string text = out.str();
  for (const kind_doc* k : kinds.all_sorted()) {
    EXPECT_THAT(text, HasSubstr(k->kind + ": " + k->summary + "\n")) << k->kind;
    for (const param_doc& p : k->params)
      EXPECT_THAT(text, HasSubstr(p.name)) << k->kind;
  }
  // Columns are aligned within a kind; required keys say so.
  EXPECT_THAT(text, HasSubstr("pe_gemm: MAC array\n"
                              "  impls:\n"
                              "    pe_gemm_v1  MAC array: ceil(ceil(tm/R)*ceil(tn/C)"
                              "*tk / rate) + R + C cycles per tile\n"
                              "  keys:\n"
                              "    mac_rows  uint  required  MAC array rows "
                              "(R)\n"
                              "    mac_cols  uint  required  MAC array "
                              "columns (C)\n"));
  EXPECT_THAT(text, HasSubstr("    lanes                uint    64  elements "
                              "per cycle (L)\n"
                              "    pipeline_cycles      cycles  4   pipeline "
                              "fill\n"));
  EXPECT_THAT(text, HasSubstr("pe_cpu: runs the kernel\n"
                              "  impls:\n"
                              "    pe_cpu_v1  runs the kernel fiber; issues "
                              "commands to PE_SCHEDULER\n"
                              "  keys: (none)\n"));
  EXPECT_THAT(text, HasSubstr("impls of undocumented kinds:\n"
                              "    ucie_v1  kind ucie\n"));
}

} // namespace
} // namespace kb
