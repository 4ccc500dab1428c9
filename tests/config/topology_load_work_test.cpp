// Loading a machine does work in proportion to its size (issue 31): the
// templates are read from YAML once, each level's links are expanded once,
// and only the nodes and links themselves grow with the machine. These tests
// count work (kb::detail::load_work), never time.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "runtime/config/detail/load_work.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/config/yaml_override.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

struct loaded {
  detail::load_work work;
  topology_spec spec;
};

/// tests/config/data/scale_machine.yaml after `--set`s, with the work done
/// by parse_topology alone.
loaded load_with(const std::vector<std::string>& sets) {
  const std::string path = test::data_path("scale_machine.yaml");
  YAML::Node doc = load_topology_document(path);
  for (const std::string& s : sets)
    apply_override(doc, parse_override(s));
  const impl_catalog kinds = test::test_catalog();
  detail::reset_load_work();
  topology_spec spec = parse_topology(doc, path, kinds);
  return {detail::this_thread_load_work(), std::move(spec)};
}

uint64_t total(const detail::load_work& w) {
  return w.yaml_entries + w.pattern_tests + w.id_lookups + w.nodes + w.links;
}

TEST(topology_load_work, four_times_the_pes_cost_at_most_five_times_the_work) {
  const loaded base = load_with({});
  const loaded big = load_with({"cube.pe_layout.count=64"});
  ASSERT_EQ(big.spec.pe_layout.count(), 4 * base.spec.pe_layout.count());
  EXPECT_GT(big.spec.nodes.size(), 3 * base.spec.nodes.size()); // it did grow
  EXPECT_LE(total(big.work), 5 * total(base.work));
}

TEST(topology_load_work, four_times_the_sips_cost_at_most_five_times_the_work) {
  const loaded base = load_with({});
  const loaded big = load_with({"system.sips=8"});
  EXPECT_EQ(big.spec.nodes.size(), 4 * base.spec.nodes.size());
  EXPECT_LE(total(big.work), 5 * total(base.work));
}

TEST(topology_load_work, templates_are_read_and_expanded_once_whatever_the_size) {
  const loaded base = load_with({});
  EXPECT_EQ(base.work.nodes, base.spec.nodes.size());
  EXPECT_EQ(base.work.links, base.spec.links.size());
  for (const char* set : {"cube.pe_layout.count=64", "system.sips=8", "sip.cubes=8"}) {
    const loaded big = load_with({set});
    EXPECT_EQ(big.work.yaml_entries, base.work.yaml_entries) << set;
    EXPECT_EQ(big.work.id_lookups, base.work.id_lookups) << set;
    EXPECT_EQ(big.work.nodes, big.spec.nodes.size()) << set;
    EXPECT_EQ(big.work.links, big.spec.links.size()) << set;
  }
  // The cube's patterns are tried on the nodes of one cube, not of every cube.
  EXPECT_EQ(load_with({"system.sips=8"}).work.pattern_tests, base.work.pattern_tests);
  EXPECT_EQ(load_with({"sip.cubes=8"}).work.pattern_tests, base.work.pattern_tests);
}

TEST(topology_load_work, nodes_and_links_come_out_in_plain_string_order) {
  // Multi-digit instances: sip10 sorts before sip2, pe1.* before pe10.*.
  const loaded m = load_with({"system.sips=11", "sip.cubes=3", "cube.pe_layout.count=12"});
  const topology_spec& t = m.spec;
  ASSERT_EQ(t.nodes.size(), 11u * 3 * (5 + 12 * 8));
  EXPECT_EQ(t.nodes.front().id, "sip0.cube0.hbm");
  EXPECT_EQ(t.nodes[3].id, "sip0.cube0.pe0.pe_cpu"); // after hbm, m_cpu, noc
  EXPECT_EQ(t.nodes[3 + 2 * 8].id, "sip0.cube0.pe10.pe_cpu"); // after pe0, pe1
  EXPECT_TRUE(std::is_sorted(t.nodes.begin(), t.nodes.end(),
                             [](const node_spec& a, const node_spec& b) { return a.id < b.id; }));
  EXPECT_EQ(std::adjacent_find(t.nodes.begin(), t.nodes.end(),
                               [](const node_spec& a, const node_spec& b) { return a.id == b.id; }),
            t.nodes.end());
  // 21 PE wires (with pe_mmu), 4 pattern links x 2 ways per PE, 3 fixed
  // cube links x 2, one UCIe link x 2 per SIP, one inter-SIP link x 2.
  EXPECT_EQ(t.links.size(), 11u * 3 * 12 * (21 + 8) + 11u * 3 * 6 + 11u * 2 + 2);
  const auto key = [](const link_spec& l) { return std::tie(l.src, l.dst); };
  EXPECT_TRUE(std::is_sorted(t.links.begin(), t.links.end(),
                             [&](const link_spec& a, const link_spec& b) { return key(a) < key(b); }));
  EXPECT_EQ(std::adjacent_find(t.links.begin(), t.links.end(),
                               [&](const link_spec& a, const link_spec& b) { return key(a) == key(b); }),
            t.links.end());
  for (const link_spec& l : t.links)
    ASSERT_TRUE(t.find_node(l.src) && t.find_node(l.dst)) << l.src << " -> " << l.dst;
  const link_spec* remote = t.find_link("sip10.cube2.pe11.pe_dma", "sip10.cube2.xbar");
  ASSERT_NE(remote, nullptr);
  EXPECT_EQ(remote->latency, ns(1));
  ASSERT_TRUE(remote->bandwidth.has_value());
  EXPECT_EQ(t.find_link("sip1.cube0.noc", "sip0.cube0.noc")->latency, ns(500));
  EXPECT_EQ(t.find_node("sip7.cube1.pe9.pe_gemm")->params.required<uint64_t>("mac_rows"), 32u);
}

/// The distinct texts of the file names that a machine's nodes, their
/// parameters and its links hold (by address: a copy of a text shares it).
size_t file_texts(const topology_spec& t) {
  std::set<const std::string*> at;
  for (const node_spec& n : t.nodes) {
    at.insert(&n.where.file.str());
    at.insert(&n.params.file());
  }
  for (const link_spec& k : t.links)
    at.insert(&k.where.file.str());
  return at.size();
}

TEST(topology_load_work, the_file_names_are_shared_not_copied_per_node_and_link) {
  // A few texts per machine (the file, each component's parameters), not one
  // per node and link (issue 31: a 57-character path held 57 MiB more than
  // a 13-character one at 16,384 PEs).
  const loaded base = load_with({});
  const loaded big = load_with({"system.sips=8"});
  ASSERT_EQ(big.spec.nodes.size(), 4 * base.spec.nodes.size());
  EXPECT_EQ(file_texts(big.spec), file_texts(base.spec));
  EXPECT_LT(file_texts(base.spec), 32u);
  EXPECT_EQ(base.spec.nodes.front().where.file, test::data_path("scale_machine.yaml"));
}

} // namespace
} // namespace kb
