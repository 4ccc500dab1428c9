// param_reader: typed reads, units, and the text of its errors.

#include <gtest/gtest.h>

#include "runtime/config/param_reader.hpp"
#include "runtime/config/yaml_source.hpp"
#include "tests/config/test_support.hpp"

namespace kb {
namespace {

using test::config_error_of;

/// A reader over the map at `node.p` of `text`, as if from file `t.yaml`.
param_reader reader(const std::string& text) {
  return param_reader::root(load_yaml_text(text, "t.yaml"), "t.yaml")
      .map("node")
      .map("p");
}

const char* k_values = R"(node:
  p:
    count: 42
    hex: 0x20
    offset: -7
    ratio: 2.5
    on: true
    off: no
    name: pe_gemm_v1
    quoted: "12"
    wait_ps: 1500
    wait_ns: 1.25
    setup_cycles: 8
    bw_gbps: 12.5
    big: 18446744073709551616
    negative: -3
    list: [1, 2]
    sub: {x: 1}
    empty:
)";

TEST(param_reader, copies_and_inner_maps_share_the_file_and_path_texts) {
  const param_reader root = param_reader::root(load_yaml_text(k_values, "a/long/path/to/t.yaml"),
                                               "a/long/path/to/t.yaml");
  const param_reader p = root.map("node").map("p");
  const param_reader copy = p; // NOLINT: the copy is the point
  EXPECT_EQ(p.file(), "a/long/path/to/t.yaml");
  EXPECT_EQ(&p.file(), &root.file());
  EXPECT_EQ(&copy.file(), &p.file());
  EXPECT_EQ(copy.path(), "node.p");
  EXPECT_EQ(&copy.path(), &p.path());
  EXPECT_EQ(&p.where("count").file.str(), &root.file());
  EXPECT_EQ(p.where("count").str(), "a/long/path/to/t.yaml:3");
}

TEST(param_reader, required_reads_each_type) {
  const param_reader r = reader(k_values);
  EXPECT_EQ(r.required<uint64_t>("count"), 42u);
  EXPECT_EQ(r.required<uint32_t>("hex"), 32u);
  EXPECT_EQ(r.required<int64_t>("offset"), -7);
  EXPECT_DOUBLE_EQ(r.required<double>("ratio"), 2.5);
  EXPECT_TRUE(r.required<bool>("on"));
  EXPECT_FALSE(r.required<bool>("off"));
  EXPECT_EQ(r.required<std::string>("name"), "pe_gemm_v1");
  EXPECT_EQ(r.required<std::string>("quoted"), "12");
  EXPECT_EQ(r.required<SimTime>("wait_ps"), ps(1500));
  EXPECT_EQ(r.required<SimTime>("wait_ns"), ps(1250));
  EXPECT_EQ(r.required<Cycles>("setup_cycles"), Cycles{8});
  EXPECT_EQ(r.required<Bandwidth>("bw_gbps").mbps, 12500u);
  EXPECT_EQ(r.required<uint32_t>("wait_ps"), 1500u);
  EXPECT_EQ(r.latency("wait_ps"), ps(1500));
  EXPECT_EQ(r.bandwidth("bw_gbps").mbps, 12500u);
}

TEST(param_reader, get_or_returns_fallback_only_when_absent) {
  const param_reader r = reader(k_values);
  EXPECT_EQ(r.get_or<uint64_t>("count", 1), 42u);
  EXPECT_EQ(r.get_or<uint64_t>("missing", 1), 1u);
  EXPECT_EQ(r.get_or<std::string>("missing", "x"), "x");
  EXPECT_EQ(r.get_or<Bandwidth>("missing_gbps", Bandwidth::gbps(3)).mbps,
            3000u);
  EXPECT_EQ(config_error_of([&] { (void)r.get_or<uint64_t>("name", 1); }),
            "t.yaml:9: node.p.name: expected a non-negative integer, got "
            "'pe_gemm_v1'");
}

TEST(param_reader, missing_key_names_the_map_and_its_line) {
  const param_reader r = reader(k_values);
  EXPECT_EQ(config_error_of([&] { (void)r.required<uint64_t>("lanes"); }),
            "t.yaml:2: node.p: missing required key 'lanes'");
}

TEST(param_reader, wrong_type_names_key_and_expected_type) {
  const param_reader r = reader(k_values);
  EXPECT_EQ(config_error_of([&] { (void)r.required<uint64_t>("negative"); }),
            "t.yaml:16: node.p.negative: expected a non-negative integer, "
            "got '-3'");
  EXPECT_EQ(config_error_of([&] { (void)r.required<uint64_t>("quoted"); }),
            "t.yaml:10: node.p.quoted: expected a non-negative integer, got "
            "the string \"12\"");
  EXPECT_EQ(config_error_of([&] { (void)r.required<int64_t>("ratio"); }),
            "t.yaml:6: node.p.ratio: expected an integer, got '2.5'");
  EXPECT_EQ(config_error_of([&] { (void)r.required<double>("list"); }),
            "t.yaml:17: node.p.list: expected a number, got a list");
  EXPECT_EQ(config_error_of([&] { (void)r.required<bool>("count"); }),
            "t.yaml:3: node.p.count: expected true or false, got '42'");
  EXPECT_EQ(config_error_of([&] { (void)r.required<std::string>("sub"); }),
            "t.yaml:18: node.p.sub: expected a string, got a map");
  EXPECT_EQ(config_error_of([&] { (void)r.required<std::string>("empty"); }),
            "t.yaml:19: node.p.empty: expected a string, got nothing");
  EXPECT_EQ(config_error_of([&] { (void)r.required<uint64_t>("big"); }),
            "t.yaml:15: node.p.big: value '18446744073709551616' is out of "
            "range (at most 18446744073709551615)");
}

TEST(param_reader, uint32_rejects_values_above_32_bits) {
  const param_reader r = reader("node:\n  p:\n    depth: 4294967296\n");
  EXPECT_EQ(config_error_of([&] { (void)r.required<uint32_t>("depth"); }),
            "t.yaml:3: node.p.depth: value '4294967296' is out of range (at most 4294967295)");
}

TEST(param_reader, times_beyond_the_limit_name_the_key_and_the_limit) {
  const param_reader r = reader("node:\n  p:\n    a_ps: 4611686018427387904\n"
                                "    b_ns: 281474976710.657\n"
                                "    c_ps: 99999999999999999999\n"
                                "    d_cycles: 281474976710657\n"
                                "    e_ps: 281474976710656\n");
  const std::string limit = "the limit of 281474976710656 ps (2^48 ps, about 281 s of "
                            "virtual time; time sums must fit in 64 bits)";
  EXPECT_EQ(config_error_of([&] { (void)r.latency("a_ps"); }),
            "t.yaml:3: node.p.a_ps: 4611686018427387904 ps exceeds " + limit);
  EXPECT_EQ(config_error_of([&] { (void)r.required<SimTime>("b_ns"); }),
            "t.yaml:4: node.p.b_ns: 281474976710657 ps exceeds " + limit);
  EXPECT_EQ(config_error_of([&] { (void)r.required<SimTime>("c_ps"); }),
            "t.yaml:5: node.p.c_ps: 99999999999999999999 ps exceeds " + limit);
  EXPECT_EQ(config_error_of([&] { (void)r.required<Cycles>("d_cycles"); }),
            "t.yaml:6: node.p.d_cycles: 281474976710657 cycles exceeds " + limit);
  EXPECT_EQ(r.required<SimTime>("e_ps"), SimTime{max_time_ps}); // the limit itself is fine
}

TEST(param_reader, time_units_follow_the_key_suffix) {
  const param_reader r =
      reader("node:\n  p:\n    a_ns: 2.0005\n    b_ns: -1\n    c_ps: 1.5\n");
  EXPECT_EQ(config_error_of([&] { (void)r.required<SimTime>("a_ns"); }),
            "t.yaml:3: node.p.a_ns: expected a non-negative number of "
            "nanoseconds (at most 3 decimals), got '2.0005'");
  EXPECT_EQ(config_error_of([&] { (void)r.required<SimTime>("b_ns"); }),
            "t.yaml:4: node.p.b_ns: expected a non-negative number of "
            "nanoseconds (at most 3 decimals), got '-1'");
  EXPECT_EQ(config_error_of([&] { (void)r.latency("c_ps"); }),
            "t.yaml:5: node.p.c_ps: expected a non-negative integer "
            "(picoseconds), got '1.5'");
  EXPECT_THROW((void)r.get_or<SimTime>("delay", ps(1)), std::invalid_argument);
}

TEST(param_reader, bandwidth_is_exact_and_positive) {
  const param_reader r =
      reader("node:\n  p:\n    a: 0.001\n    b: 0\n    c: -2\n    d: 1.0001\n"
             "    e: fast\n    f: 256.000\n");
  EXPECT_EQ(r.bandwidth("a").mbps, 1u);
  EXPECT_EQ(r.bandwidth("f").mbps, 256000u);
  EXPECT_EQ(config_error_of([&] { (void)r.bandwidth("b"); }),
            "t.yaml:4: node.p.b: bandwidth must be > 0");
  EXPECT_EQ(config_error_of([&] { (void)r.bandwidth("c"); }),
            "t.yaml:5: node.p.c: bandwidth must be > 0");
  EXPECT_EQ(config_error_of([&] { (void)r.bandwidth("d"); }),
            "t.yaml:6: node.p.d: bandwidth '1.0001' is not a whole number "
            "of MB/s (at most 3 decimals in GB/s)");
  EXPECT_EQ(config_error_of([&] { (void)r.bandwidth("e"); }),
            "t.yaml:7: node.p.e: expected a bandwidth in GB/s (a number), "
            "got 'fast'");
}

TEST(param_reader, unknown_keys_names_first_unknown_and_duplicates) {
  const param_reader r =
      reader("node:\n  p:\n    lanes: 1\n    lane: 2\n    width: 3\n");
  EXPECT_EQ(config_error_of([&] {
              r.unknown_keys({"lanes", "width"});
            }),
            "t.yaml:4: node.p.lane: unknown key 'lane' (allowed: lanes, "
            "width)");
  EXPECT_NO_THROW(r.unknown_keys({"lanes", "lane", "width"}));
  const param_reader dup = reader("node:\n  p:\n    a: 1\n    a: 2\n");
  EXPECT_EQ(config_error_of([&] { dup.unknown_keys({"a"}); }),
            "t.yaml:4: node.p.a: duplicate key 'a'");
}

TEST(param_reader, structure_helpers_keep_paths_and_lines) {
  const param_reader root = param_reader::root(
      load_yaml_text("top:\n  items:\n    - {a: 1}\n    - {a: x}\n", "t.yaml"),
      "t.yaml");
  const auto items = root.map("top").list_of_maps("items");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].required<uint64_t>("a"), 1u);
  EXPECT_EQ(config_error_of([&] { (void)items[1].required<uint64_t>("a"); }),
            "t.yaml:4: top.items[1].a: expected a non-negative integer, got "
            "'x'");
  EXPECT_EQ(config_error_of([&] { (void)root.map("top").map("items"); }),
            "t.yaml:2: top.items: expected a map, got a list");
  EXPECT_TRUE(root.map("top").map_or_empty("none").keys().empty());
  const param_reader blank =
      param_reader::root(load_yaml_text("m:\nl:\n", "b.yaml"), "b.yaml");
  EXPECT_TRUE(blank.map("m").keys().empty());
  EXPECT_TRUE(blank.list_of_maps("l").empty());
}

TEST(param_reader, assignment_rebinds_without_touching_other_copies) {
  const param_reader root = param_reader::root(
      load_yaml_text("a: {x: 1}\nb: {y: 2}\n", "t.yaml"), "t.yaml");
  param_reader first = root.map("a");
  const param_reader keep = first;
  first = root.map("b");
  EXPECT_EQ(first.required<uint64_t>("y"), 2u);
  EXPECT_EQ(first.path(), "b");
  EXPECT_EQ(keep.required<uint64_t>("x"), 1u);
  EXPECT_FALSE(keep.has("y"));
  EXPECT_EQ(root.map("a").keys(), std::vector<std::string>{"x"});
}

TEST(param_reader, malformed_yaml_becomes_config_error_with_parser_line) {
  EXPECT_EQ(config_error_of(
                [] { load_yaml_text("a: 1\nb: [1, 2\nc: 3\n", "m.yaml"); }),
            "m.yaml:3: malformed YAML: end of sequence flow not found");
  EXPECT_EQ(config_error_of([] { load_yaml_file("/nonexistent/x.yaml"); }),
            "/nonexistent/x.yaml: cannot open file");
  EXPECT_EQ(config_error_of([] {
              param_reader::root(load_yaml_text("- 1\n", "l.yaml"), "l.yaml");
            }),
            "l.yaml:1: expected a map at the top level, got a list");
}

} // namespace
} // namespace kb
