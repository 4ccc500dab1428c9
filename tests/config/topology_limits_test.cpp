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
    parse_topology(load_yaml_text(text, "t.yaml"), "t.yaml", test::default_registry(),
                   test::test_catalog());
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
      "t.yaml", test::default_registry(), test::test_catalog());
  EXPECT_EQ(t.clock_period_ps, max_time_ps);
}

TEST(topology_limits, a_machine_of_too_many_nodes_is_refused_before_it_is_built) {
  EXPECT_EQ(error_parsing("system: {sips: 4096}\n"
                          "sip: {cubes: 64}\n"
                          "cube:\n"
                          "  pe_layout: {count: 4294967295}\n"
                          "  pe_template: {components: {pe_gemm: {impl: pe_gemm_v1, mac_rows: 32, "
                          "mac_cols: 32}}, links: []}\n"),
            "t.yaml:4: cube.pe_layout: 4096 SIP(s) x 64 cube(s) x 4294967295 PE(s) make "
            "1125899906580480 nodes, more than the limit of 1048576 (every node is an actor "
            "with its own queues and links; a larger machine would not fit in memory)");
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
