// impl_catalog, resolve_params and the list-components text.

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/config/impl_doc.hpp"
#include "runtime/config/print_components.hpp"
#include "runtime/config/yaml_source.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

using test::config_error_of;
using ::testing::HasSubstr;

impl_doc math_doc() {
  return {"pe_math_v1",
          "pe_math",
          "SIMD unit",
          {{"lanes", "uint", "64", "elements per cycle"},
           {"pipeline_cycles", "cycles", "4", "pipeline fill"},
           {"mode", "string", "", "required mode"}}};
}

param_reader component(const std::string& yaml) {
  return param_reader::root(load_yaml_text(yaml, "c.yaml"), "c.yaml")
      .map("pe_math");
}

TEST(impl_catalog, finds_impls_and_lists_them_by_kind) {
  impl_catalog c;
  c.add(math_doc());
  c.add({"hbm_ctrl_v1", "hbm_ctrl", "HBM", {}});
  c.add({"hbm_ctrl_channels_v1", "hbm_ctrl", "HBM per channel",
         {{"channels", "uint", "1", "channels"}}});
  ASSERT_NE(c.find("pe_math_v1"), nullptr);
  EXPECT_EQ(c.find("pe_math_v1")->params.size(), 3u);
  EXPECT_EQ(c.find("pe_math"), nullptr); // by impl, not kind
  EXPECT_TRUE(c.has_kind("pe_math"));
  EXPECT_FALSE(c.has_kind("pe_gemm"));
  EXPECT_EQ(c.kinds(), (std::vector<std::string>{"hbm_ctrl", "pe_math"}));
  const auto hbm = c.of_kind("hbm_ctrl");
  ASSERT_EQ(hbm.size(), 2u); // two impls of one kind, each with its own keys
  EXPECT_EQ(hbm[0]->impl, "hbm_ctrl_channels_v1");
  EXPECT_EQ(hbm[1]->params.size(), 0u);
  const auto all = c.all_sorted();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0]->impl, "hbm_ctrl_channels_v1");
  EXPECT_EQ(all[2]->impl, "pe_math_v1");
}

TEST(impl_catalog, rejects_inconsistent_docs) {
  impl_catalog c;
  c.add(math_doc());
  EXPECT_THROW(c.add(math_doc()), std::invalid_argument); // duplicate impl
  EXPECT_THROW(c.add({"a.b", "k", "", {}}), std::invalid_argument);   // impl name
  EXPECT_THROW(c.add({"k_v1", "k*", "", {}}), std::invalid_argument); // kind name
  EXPECT_THROW(c.add({"k_v1", "k", "", {{"x", "integer", "", ""}}}),
               std::invalid_argument); // unknown type
  EXPECT_THROW(c.add({"k_v1", "k", "", {{"delay", "ns", "1", ""}}}),
               std::invalid_argument); // ns key must end in _ns
  EXPECT_THROW(c.add({"k_v1", "k", "", {{"bw_gbps", "GB/s", "0", ""}}}),
               std::invalid_argument); // default is not a valid bandwidth
  EXPECT_THROW(c.add({"k_v1", "k", "", {{"n", "uint", "-1", ""}}}),
               std::invalid_argument);
  EXPECT_THROW(c.add({"k_v1", "k", "", {{"impl", "string", "", ""}}}),
               std::invalid_argument); // reserved
  EXPECT_THROW(c.add({"k_v1", "k", "", {{"a", "uint", "", ""}, {"a", "uint", "", ""}}}),
               std::invalid_argument);
  EXPECT_EQ(c.find("k_v1"), nullptr);
  EXPECT_EQ(c.size(), 1u);
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

TEST(print_components, lists_every_kind_with_its_impls_keys_and_ports) {
  impl_catalog c = test::test_catalog();
  c.add({"talker_v1", "talker", "sends", {}, {{"out", "listener"}, {"done", "pe_cpu"}}});
  std::ostringstream out;
  print_components(out, c);
  const std::string text = out.str();
  for (const impl_doc* d : c.all_sorted()) {
    EXPECT_THAT(text, HasSubstr("\n  " + d->impl + ": " + d->description + "\n")) << d->impl;
    for (const param_doc& p : d->params)
      EXPECT_THAT(text, HasSubstr(p.name)) << d->impl;
  }
  // Columns are aligned within an impl; required keys say so.
  EXPECT_THAT(text, HasSubstr("\npe_gemm\n"
                              "  pe_gemm_v1: MAC array\n"
                              "    keys:\n"
                              "      mac_rows  uint  required  MAC array rows (R)\n"
                              "      mac_cols  uint  required  MAC array columns (C)\n"));
  EXPECT_THAT(text, HasSubstr("      lanes                uint    64  elements per cycle (L)\n"
                              "      pipeline_cycles      cycles  4   pipeline fill\n"));
  EXPECT_THAT(text, HasSubstr("\npe_cpu\n"
                              "  pe_cpu_v1: runs the kernel\n"
                              "    keys: (none)\n"));
  // Two impls of one kind, each with its own keys; kinds sorted.
  EXPECT_THAT(text, ::testing::StartsWith("hbm_ctrl\n"
                                          "  hbm_ctrl_channels_v1: HBM controller, per channel\n"));
  EXPECT_THAT(text, HasSubstr("  hbm_ctrl_v1: HBM controller\n"
                              "    keys:\n"
                              "      bandwidth_gbps  GB/s  512  service bandwidth\n"
                              "      latency_ns      ns    100  access latency\n\nm_cpu\n"));
  EXPECT_THAT(text, HasSubstr("talker\n"
                              "  talker_v1: sends\n"
                              "    keys: (none)\n"
                              "    ports: out -> listener, done -> pe_cpu\n"));
}

} // namespace
} // namespace kb
