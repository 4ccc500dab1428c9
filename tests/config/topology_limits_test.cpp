// Values that would overflow virtual time or memory are refused at load time,
// naming the key and the limit (issue 15, items 1 and 2).

#include <gtest/gtest.h>

#include "runtime/config/topology_loader.hpp"
#include "runtime/config/yaml_source.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

const std::string k_limit = "the limit of 281474976710656 ps (2^48 ps, about 281 s of virtual "
                            "time; time sums must fit in 64 bits)";

std::string error_parsing(const std::string& text) {
  return test::config_error_of([&] {
    parse_topology(load_yaml_text(text, "t.yaml"), "t.yaml", test::test_catalog());
  });
}

TEST(topology_limits, a_link_latency_beyond_the_time_limit_names_the_key) {
  EXPECT_EQ(error_parsing("cube:\n"
                          "  pe_layout: {count: 1}\n"
                          "  pe_template: {components: {}, links: []}\n"
                          "  components: {xbar: {impl: xbar_v1}, noc: {impl: noc_v1}}\n"
                          "  links:\n"
                          "    - {from: xbar, to: noc, latency_ps: 4611686018427387904}\n"),
            "t.yaml:6: cube.links[0].latency_ps: 4611686018427387904 ps exceeds " + k_limit);
}

TEST(topology_limits, a_component_time_beyond_the_limit_names_the_key) {
  EXPECT_EQ(error_parsing("cube:\n"
                          "  pe_layout: {count: 1}\n"
                          "  pe_template: {components: {}, links: []}\n"
                          "  components:\n"
                          "    xbar: {impl: xbar_v1, latency_ns: 300000000000}\n"),
            "t.yaml:5: cube.components.xbar.latency_ns: 300000000000000 ps exceeds " + k_limit);
}

TEST(topology_limits, a_clock_period_beyond_the_limit_is_refused) {
  EXPECT_EQ(error_parsing("clock_period_ps: 1125899906842624\n"
                          "cube: {pe_layout: {count: 1}, pe_template: {components: {}}}\n"),
            "t.yaml:1: clock_period_ps: 1125899906842624 ps exceeds " + k_limit);
}

TEST(topology_limits, wire_cycles_times_the_clock_beyond_the_limit_is_refused) {
  // 2^30 cycles of 2^20 ps = 2^50 ps: each fits, the product does not.
  EXPECT_EQ(error_parsing("clock_period_ps: 1048576\n"
                          "pe_wire_latency_cycles: 1073741824\n"
                          "cube: {pe_layout: {count: 1}, pe_template: {components: {}}}\n"),
            "t.yaml:2: pe_wire_latency_cycles: 1073741824 cycles x clock_period_ps 1048576 "
            "exceeds " + k_limit);
}

TEST(topology_limits, a_cycles_parameter_times_the_clock_beyond_the_limit_is_refused) {
  EXPECT_EQ(error_parsing("clock_period_ps: 1000000\n"
                          "cube:\n"
                          "  pe_layout: {count: 1}\n"
                          "  pe_template:\n"
                          "    components:\n"
                          "      pe_dma: {impl: pe_dma_v1, dma_setup_cycles: 1000000000}\n"
                          "    links: []\n"),
            "t.yaml:6: cube.pe_template.components.pe_dma.dma_setup_cycles: 1000000000 "
            "cycles x clock_period_ps 1000000 exceeds " + k_limit);
}

TEST(topology_limits, the_largest_time_is_accepted) {
  const topology_spec t = parse_topology(
      load_yaml_text("clock_period_ps: 281474976710656\n"
                     "cube: {pe_layout: {count: 1}, pe_template: {components: {}, links: []}}\n",
                     "t.yaml"),
      "t.yaml", test::test_catalog());
  EXPECT_EQ(t.clock_period_ps, max_time_ps);
}

TEST(topology_limits, a_machine_of_too_many_nodes_is_refused_before_it_is_built) {
  EXPECT_EQ(error_parsing("system: {sips: 256}\n"
                          "sip: {cubes: 256}\n"
                          "cube:\n"
                          "  pe_layout: {count: 256}\n"
                          "  pe_template: {components: {pe_gemm: {impl: pe_gemm_v1, mac_rows: 32, "
                          "mac_cols: 32}}, links: []}\n"),
            "t.yaml:4: cube.pe_layout: 256 SIP(s) x 256 cube(s) x 256 PE(s) make "
            "16777216 nodes, more than the limit of 1048576 (every node is an actor "
            "with its own queues and links; a larger machine would not fit in memory)");
}

TEST(topology_limits, more_than_256_sips_cubes_or_pes_per_cube_are_refused_naming_the_key) {
  // A global address numbers each in 8 bits; such machines used to be built
  // (100,000 PEs per cube: 24 s, 1.7 GB) and then refused by a memory's name.
  const std::string pe = "  pe_template: {components: {}, links: []}\n";
  const std::string why = " (a global address holds the number in 8 bits: "
                          "docs/adr/0003-address-encoding.md)";
  EXPECT_EQ(error_parsing("system: {sips: 1000}\ncube:\n  pe_layout: {count: 1}\n" + pe),
            "t.yaml:1: system.sips: 1000: more than the limit of 256 SIPs" + why);
  EXPECT_EQ(error_parsing("sip: {cubes: 257}\ncube:\n  pe_layout: {count: 1}\n" + pe),
            "t.yaml:1: sip.cubes: 257: more than the limit of 256 cubes per SIP" + why);
  EXPECT_EQ(error_parsing("cube:\n  pe_layout: {rows: 316, cols: 317}\n" + pe),
            "t.yaml:2: cube.pe_layout: 100172 PEs: more than the limit of 256 PEs per cube" + why);
  // The limits themselves are accepted.
  const topology_spec most_sips_and_cubes = parse_topology(
    load_yaml_text("system: {sips: 256}\nsip: {cubes: 256}\ncube:\n  pe_layout: {count: 1}\n" + pe,
                   "t.yaml"),
    "t.yaml", test::test_catalog());
  EXPECT_EQ(most_sips_and_cubes.sips * most_sips_and_cubes.cubes_per_sip, 65536u);
  const topology_spec most_pes = parse_topology(
    load_yaml_text("cube:\n  pe_layout: {rows: 16, cols: 16}\n" + pe, "t.yaml"), "t.yaml",
    test::test_catalog());
  EXPECT_EQ(most_pes.pe_layout.count(), 256u);
}

TEST(topology_limits, a_directory_given_as_the_file_says_so) {
  EXPECT_EQ(test::config_error_of([&] { (void)load_yaml_file(test::source_dir()); }),
            test::source_dir() + ": is a directory, not a file");
}

TEST(topology_limits, malformed_json_is_called_json) {
  EXPECT_EQ(test::config_error_of([&] { (void)load_yaml_text("{\"a\": [1,\n", "x.json"); }),
            "x.json:2: malformed JSON: end of sequence flow not found");
}

} // namespace
} // namespace kb
