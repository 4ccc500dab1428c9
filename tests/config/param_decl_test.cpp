// One declaration per parameter (ADR-0037): what a declaration documents
// (type from the C++ type and the key's suffix, default text from the typed
// default) and how it reads (defaults, ranges, choices, errors naming
// file:line and key).

#include <gtest/gtest.h>

#include "runtime/config/param_decl.hpp"
#include "runtime/config/yaml_source.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

using test::config_error_of;

struct demo_config {
  uint32_t lanes = 0;
  uint64_t size = 0;
  int64_t offset = 0;
  double ratio = 0;
  bool fast = false;
  std::string mode;
  Cycles setup{};
  SimTime latency{};
  SimTime delay{};
  Bandwidth bandwidth{};
  int policy = 0;
};

const impl_decl<demo_config>& demo() {
  static const impl_decl<demo_config> d{
    "demo",
    "a kind with one key of every type",
    {param(&demo_config::lanes, "lanes", "elements per cycle").init(64u).at_least(1u),
     param(&demo_config::size, "size_kib", "capacity")
       .init(uint64_t{4096})
       .at_most(uint64_t{1} << 20, "more than 1 GiB"),
     param(&demo_config::offset, "offset", "signed").init(int64_t{-3}),
     param(&demo_config::ratio, "ratio", "a float").init(0.25),
     param(&demo_config::fast, "fast", "a flag").init(true),
     param(&demo_config::mode, "mode", "required text"),
     param(&demo_config::setup, "setup_cycles", "cycles").init(Cycles{8}),
     param(&demo_config::latency, "latency_ns", "ns").init(ps(2500)),
     param(&demo_config::delay, "delay_ps", "ps").init(ps(7)),
     param(&demo_config::bandwidth, "bandwidth_gbps", "GB/s").init(Bandwidth{125}),
     choice(&demo_config::policy, "policy", "how", {{"fifo", 1}, {"modulo", 2}})}};
  return d;
}

param_reader yaml(const std::string& text) {
  return param_reader::root(load_yaml_text(text, "d.yaml"), "d.yaml");
}

TEST(param_decl, documents_type_and_default_from_the_declaration) {
  const impl_doc d = demo().doc("demo_v1", {{"out", "sink"}});
  EXPECT_EQ(d.impl, "demo_v1");
  EXPECT_EQ(d.kind, "demo");
  ASSERT_EQ(d.params.size(), 11u);
  const std::vector<std::tuple<std::string, std::string, std::string>> want = {
    {"lanes", "uint", "64"},         {"size_kib", "uint", "4096"},
    {"offset", "int", "-3"},         {"ratio", "float", "0.25"},
    {"fast", "bool", "true"},        {"mode", "string", ""},
    {"setup_cycles", "cycles", "8"}, {"latency_ns", "ns", "2.5"},
    {"delay_ps", "ps", "7"},         {"bandwidth_gbps", "GB/s", "0.125"},
    {"policy", "string", "fifo"}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(d.params[i].name, std::get<0>(want[i]));
    EXPECT_EQ(d.params[i].type, std::get<1>(want[i])) << d.params[i].name;
    EXPECT_EQ(d.params[i].default_value, std::get<2>(want[i])) << d.params[i].name;
  }
  EXPECT_EQ(d.params[10].doc, "how (one of: fifo, modulo)");
  ASSERT_EQ(d.ports.size(), 1u);
  // What it documents is what the catalog accepts: types, suffixes, defaults.
  impl_catalog c;
  EXPECT_NO_THROW(c.add(d));
}

TEST(param_decl, reads_given_values_and_defaults_for_the_rest) {
  const demo_config c = demo().read(yaml("mode: x\nlanes: 128\nlatency_ns: 0.5\npolicy: modulo\n"));
  EXPECT_EQ(c.lanes, 128u);
  EXPECT_EQ(c.mode, "x");
  EXPECT_EQ(c.latency, ps(500));
  EXPECT_EQ(c.policy, 2);
  EXPECT_EQ(c.size, 4096u);
  EXPECT_EQ(c.offset, -3);
  EXPECT_EQ(c.ratio, 0.25);
  EXPECT_TRUE(c.fast);
  EXPECT_EQ(c.setup, Cycles{8});
  EXPECT_EQ(c.delay, ps(7));
  EXPECT_EQ(c.bandwidth.mbps, 125u);
}

TEST(param_decl, refuses_bad_values_naming_file_line_and_key) {
  EXPECT_EQ(config_error_of([] { demo().read(yaml("lanes: 1\n")); }),
            "d.yaml:1: missing required key 'mode'");
  EXPECT_EQ(config_error_of([] { demo().read(yaml("mode: x\n\nlanes: 0\n")); }),
            "d.yaml:3: lanes: must be >= 1");
  EXPECT_EQ(config_error_of([] { demo().read(yaml("mode: x\nsize_kib: 1048577\n")); }),
            "d.yaml:2: size_kib: more than 1 GiB");
  EXPECT_EQ(config_error_of([] { demo().read(yaml("mode: x\npolicy: lifo\n")); }),
            "d.yaml:2: policy: unknown policy 'lifo' (known: fifo, modulo)");
  EXPECT_EQ(config_error_of([] { demo().read(yaml("mode: x\nlanes: many\n")); }),
            "d.yaml:2: lanes: expected a non-negative integer, got 'many'");
}

} // namespace
} // namespace kb
