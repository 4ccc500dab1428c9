// Every bad topology is rejected with file:line: key.path: message.

#include <gtest/gtest.h>

#include "runtime/config/topology_loader.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

/// Loads tests/config/data/<name> and returns the error text with the file
/// path replaced by `<name>`.
std::string error_loading(const std::string& name) {
  const std::string path = test::data_path(name);
  std::string what = test::config_error_of([&] {
    load_topology(path, test::test_catalog());
  });
  for (auto at = what.find(path); at != std::string::npos; at = what.find(path))
    what.replace(at, path.size(), name);
  return what;
}

TEST(topology_error, malformed_yaml_reports_parser_line) {
  EXPECT_EQ(error_loading("bad_malformed.yaml"),
            "bad_malformed.yaml:6: malformed YAML: end of map flow not found");
}

TEST(topology_error, missing_required_param) {
  EXPECT_EQ(error_loading("bad_missing_param.yaml"),
            "bad_missing_param.yaml:6: cube.pe_template.components.pe_gemm: "
            "missing required key 'mac_rows'");
}

TEST(topology_error, missing_required_section) {
  EXPECT_EQ(error_loading("bad_missing_cube.yaml"),
            "bad_missing_cube.yaml:1: missing required key 'cube'");
}

TEST(topology_error, unknown_impl_lists_known_impls_of_the_kind) {
  EXPECT_EQ(error_loading("bad_unknown_impl.yaml"),
            "bad_unknown_impl.yaml:6: cube.pe_template.components.pe_gemm."
            "impl: unknown impl 'pe_gemm_v9' (known: pe_gemm_v1)");
}

TEST(topology_error, unknown_kind_from_component_name) {
  EXPECT_EQ(error_loading("bad_unknown_kind.yaml"),
            "bad_unknown_kind.yaml:6: cube.components.dram: unknown kind "
            "'dram' (a component's kind is its name unless it sets 'kind'; "
            "known: hbm_ctrl, m_cpu, noc, pe_cpu, pe_dma, pe_fetch_store, "
            "pe_gemm, pe_math, pe_mmu, pe_scheduler, pe_tcm, sram, xbar)");
}

TEST(topology_error, unknown_explicit_kind) {
  EXPECT_EQ(error_loading("bad_unknown_explicit_kind.yaml"),
            "bad_unknown_explicit_kind.yaml:7: cube.components.hbm.kind: "
            "unknown kind 'dram_ctrl' (known: hbm_ctrl, m_cpu, noc, pe_cpu, "
            "pe_dma, pe_fetch_store, pe_gemm, pe_math, pe_mmu, pe_scheduler, "
            "pe_tcm, sram, xbar)");
}

TEST(topology_error, impl_of_another_kind) {
  EXPECT_EQ(error_loading("bad_kind_mismatch.yaml"),
            "bad_kind_mismatch.yaml:6: cube.components.xbar.impl: impl "
            "'hbm_ctrl_v1' is of kind 'hbm_ctrl', but component 'xbar' is of "
            "kind 'xbar'");
}

TEST(topology_error, negative_link_bandwidth) {
  EXPECT_EQ(error_loading("bad_negative_bandwidth.yaml"),
            "bad_negative_bandwidth.yaml:9: cube.links[0].bandwidth_gbps: "
            "bandwidth must be > 0");
}

TEST(topology_error, zero_bandwidth_param) {
  EXPECT_EQ(error_loading("bad_zero_bandwidth_param.yaml"),
            "bad_zero_bandwidth_param.yaml:5: cube.pe_template.components."
            "pe_tcm.bandwidth_gbps: bandwidth must be > 0");
}

TEST(topology_error, zero_latency_link) {
  EXPECT_EQ(error_loading("bad_zero_latency.yaml"),
            "bad_zero_latency.yaml:11: cube.links[0].latency_ns: link latency "
            "must be >= 1 ps: a zero-latency link cannot be synchronised "
            "conservatively");
}

TEST(topology_error, duplicate_node_id) {
  EXPECT_EQ(
      error_loading("bad_duplicate_node.yaml"),
      "bad_duplicate_node.yaml:8: cube.components.xbar: duplicate node "
      "id 'sip0.cube0.xbar' (first declared at bad_duplicate_node.yaml:6)");
}

TEST(topology_error, link_to_unknown_node) {
  EXPECT_EQ(error_loading("bad_link_unknown_dst.yaml"),
            "bad_link_unknown_dst.yaml:11: cube.links[1].to: link to unknown "
            "node 'sip0.cube0.hbn'");
}

TEST(topology_error, link_pattern_from_matching_nothing) {
  EXPECT_EQ(error_loading("bad_link_unknown_src.yaml"),
            "bad_link_unknown_src.yaml:9: cube.links[0].from: "
            "'sip0.cube0.pe*.pe_dmx' matches no node");
}

TEST(topology_error, unknown_param_key) {
  EXPECT_EQ(error_loading("bad_unknown_param.yaml"),
            "bad_unknown_param.yaml:5: cube.pe_template.components.pe_gemm."
            "mac_row: unknown key 'mac_row' (allowed: impl, kind, mac_cols, "
            "mac_rows)");
}

TEST(topology_error, unknown_structural_key) {
  EXPECT_EQ(error_loading("bad_unknown_top_key.yaml"),
            "bad_unknown_top_key.yaml:3: sip.cube: unknown key 'cube' "
            "(allowed: components, cubes, links)");
}

TEST(topology_error, zero_pe_wire_latency) {
  EXPECT_EQ(error_loading("bad_wire_latency.yaml"),
            "bad_wire_latency.yaml:2: pe_wire_latency_cycles: must be >= 1: a "
            "zero-latency wire cannot be synchronised conservatively");
}

TEST(topology_error, duplicate_link) {
  EXPECT_EQ(error_loading("bad_duplicate_link.yaml"),
            "bad_duplicate_link.yaml:10: duplicate link sip0.cube0.xbar -> "
            "sip0.cube0.pe0.pe_dma (first declared at "
            "bad_duplicate_link.yaml:9)");
}

TEST(topology_error, quoted_number_is_a_type_error) {
  EXPECT_EQ(error_loading("bad_param_type.yaml"),
            "bad_param_type.yaml:5: cube.pe_template.components.pe_gemm."
            "mac_rows: expected a non-negative integer, got the string \"32\"");
}

TEST(topology_error, default_wire_needs_its_components) {
  EXPECT_EQ(error_loading("bad_default_wire.yaml"),
            "bad_default_wire.yaml:3: cube.pe_template: the default wire "
            "pe_scheduler -> pe_dma needs component 'pe_dma'; declare it or "
            "list the PE's links");
}

TEST(topology_error, instance_names_are_reserved) {
  EXPECT_EQ(error_loading("bad_reserved_name.yaml"),
            "bad_reserved_name.yaml:5: cube.components.pe1: component name "
            "'pe1' is reserved for the instances pe0, pe1, ...");
}

TEST(topology_error, missing_file) {
  EXPECT_EQ(error_loading("no_such_file.yaml"),
            "no_such_file.yaml: cannot open file");
}

} // namespace
} // namespace kb
