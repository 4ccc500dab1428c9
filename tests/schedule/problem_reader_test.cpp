// The JSON/YAML problem reader: every field parsed, defaults, and every bad
// input rejected with file:line: key.path: message.

#include <gtest/gtest.h>

#include "runtime/config/config_error.hpp"
#include "runtime/schedule/problem_reader.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace kb::sched {
namespace {

const std::string k_loop = R"({
  "resources": {"dma": 1, "tc": 1, "smem_rd": 5},
  "attributes": {"force_serial_execution": true, "serial_threshold": 4},
  "ops": [
    {"name": "load_a", "latency": 4, "reservation": [{"dma": 1}, {"dma": 1}],
     "max_depth": 1, "gid": 3, "leader_gid": 7},
    {"name": "load_b", "latency": 3, "reservation": [{"dma": 1}, {}]},
    {"name": "mma", "latency": 2, "reservation": [{"tc": 1, "smem_rd": 5}]},
    {"name": "store", "gid": -2}
  ],
  "edges": [
    {"from": "load_a", "to": "mma", "latency": 5, "distance": 0},
    {"from": "load_b", "to": "mma"},
    {"from": "mma", "to": "mma", "latency": 2, "distance": 1},
    {"from": "mma", "to": "store", "distance": 0}
  ]
}
)";

/// The what() of the config_error or problem_error that reading `text` as
/// `loop.json` throws.
std::string error_of(const std::string& text) {
  try {
    read_problem_text(text, "loop.json");
  } catch (const config_error& e) {
    return e.what();
  } catch (const problem_error& e) {
    return std::string("problem_error: ").append(e.what());
  }
  return "<no error thrown>";
}

/// A minimal problem around one op and one edge, for the bad-input tests.
std::string with_op(const std::string& op, const std::string& edges = "[]") {
  return R"({"resources": {"dma": 1, "tc": 1, "smem_rd": 5},
"ops": [{"name": "a"},
)" + op + R"(],
"edges": )" + edges + "}\n";
}

TEST(problem_reader, json_every_field) {
  const problem p = read_problem_text(k_loop, "loop.json");
  EXPECT_EQ(p.source, "loop.json");
  ASSERT_EQ(p.pools.size(), 3u);
  EXPECT_EQ(p.pools[0].name, "dma");
  EXPECT_EQ(p.pools[0].capacity, 1u);
  EXPECT_EQ(p.pools[1].name, "tc");
  EXPECT_EQ(p.pools[2].name, "smem_rd");
  EXPECT_EQ(p.pools[2].capacity, 5u);
  EXPECT_TRUE(p.force_serial_execution);
  EXPECT_EQ(p.serial_threshold, 4u);

  ASSERT_EQ(p.ops.size(), 4u);
  const op_spec& a = p.ops[0];
  EXPECT_EQ(a.name, "load_a");
  EXPECT_EQ(a.latency, 4);
  ASSERT_EQ(a.reservation.size(), 2u);
  ASSERT_EQ(a.reservation[0].size(), 1u);
  EXPECT_EQ(a.reservation[0][0].pool, 0u);
  EXPECT_EQ(a.reservation[0][0].count, 1u);
  ASSERT_EQ(a.reservation[1].size(), 1u);
  EXPECT_EQ(a.reservation[1][0].pool, 0u);
  EXPECT_EQ(a.max_depth, 1u);
  EXPECT_EQ(a.gid, 3);
  EXPECT_EQ(a.leader_gid, 7);
  EXPECT_EQ(a.line, 5u);

  const op_spec& b = p.ops[1];
  EXPECT_EQ(b.latency, 3);
  ASSERT_EQ(b.reservation.size(), 2u);
  EXPECT_TRUE(b.reservation[1].empty());
  EXPECT_FALSE(b.max_depth);
  EXPECT_FALSE(b.gid);
  EXPECT_FALSE(b.leader_gid);
  EXPECT_EQ(b.line, 7u);

  const op_spec& m = p.ops[2];
  ASSERT_EQ(m.reservation.size(), 1u);
  ASSERT_EQ(m.reservation[0].size(), 2u);
  EXPECT_EQ(m.reservation[0][0].pool, 1u);
  EXPECT_EQ(m.reservation[0][1].pool, 2u);
  EXPECT_EQ(m.reservation[0][1].count, 5u);

  const op_spec& s = p.ops[3];
  EXPECT_EQ(s.name, "store");
  EXPECT_EQ(s.latency, 1); // default
  EXPECT_TRUE(s.reservation.empty());
  EXPECT_FALSE(s.bears_resources());
  EXPECT_EQ(s.gid, -2);

  ASSERT_EQ(p.edges.size(), 4u);
  EXPECT_EQ(p.edges[0].from, 0u);
  EXPECT_EQ(p.edges[0].to, 2u);
  EXPECT_EQ(p.edges[0].latency, 5);
  EXPECT_EQ(p.edges[0].distance, 0u);
  EXPECT_EQ(p.edges[0].line, 12u);
  EXPECT_EQ(p.edges[2].from, 2u);
  EXPECT_EQ(p.edges[2].to, 2u);
  EXPECT_EQ(p.edges[2].distance, 1u);
  EXPECT_EQ(p.edges[3].line, 15u);
}

TEST(problem_reader, edge_defaults_come_from_the_source_op) {
  const problem p = read_problem_text(k_loop, "loop.json");
  EXPECT_EQ(p.edges[1].latency, 3); // load_b's latency
  EXPECT_EQ(p.edges[1].distance, 0u);
  EXPECT_EQ(p.edges[3].latency, 2); // mma's latency
}

TEST(problem_reader, optional_sections_default) {
  const problem p =
    read_problem_text(R"({"resources": {}, "ops": [{"name": "x"}]})", "min.json");
  EXPECT_TRUE(p.pools.empty());
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_TRUE(p.edges.empty());
  EXPECT_FALSE(p.force_serial_execution);
  EXPECT_EQ(p.serial_threshold, 8u);
}

TEST(problem_reader, yaml_form) {
  const problem p = read_problem_text(R"(resources:
  dma: 2
  tc: 1
attributes:
  serial_threshold: 0
ops:
  - name: load
    latency: 3
    reservation:
      - {dma: 2}
      -
      - dma: 1
        tc: 1
  - name: use
edges:
  - from: load
    to: use
  - {from: use, to: load, distance: 2, latency: 0}
)",
                                      "loop.yaml");
  ASSERT_EQ(p.pools.size(), 2u);
  EXPECT_EQ(p.pools[0].capacity, 2u);
  EXPECT_EQ(p.serial_threshold, 0u);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].line, 7u);
  ASSERT_EQ(p.ops[0].reservation.size(), 3u);
  EXPECT_EQ(p.ops[0].reservation[0][0].count, 2u);
  EXPECT_TRUE(p.ops[0].reservation[1].empty());
  EXPECT_EQ(p.ops[0].reservation[2].size(), 2u);
  EXPECT_EQ(p.ops[1].line, 14u);
  ASSERT_EQ(p.edges.size(), 2u);
  EXPECT_EQ(p.edges[0].latency, 3);
  EXPECT_EQ(p.edges[1].latency, 0);
  EXPECT_EQ(p.edges[1].distance, 2u);
  EXPECT_EQ(p.edges[1].line, 18u);
}

TEST(problem_reader, reads_a_file) {
  const auto path = std::filesystem::path(testing::TempDir()) / "kb_problem_reader_test.json";
  {
    std::ofstream out(path);
    out << k_loop;
  }
  const problem p = read_problem_file(path.string());
  EXPECT_EQ(p.source, path.string());
  EXPECT_EQ(p.ops.size(), 4u);
  std::filesystem::remove(path);
}

TEST(problem_reader, missing_file) {
  try {
    read_problem_file("/nonexistent/loop.json");
    FAIL() << "no error";
  } catch (const config_error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/loop.json: cannot open file");
  }
}

TEST(problem_reader, unknown_pool) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "reservation": [{"dma": 1}, {"dmaa": 1}]})")),
            "loop.json:3: ops[1].reservation[1].dmaa: unknown resource pool 'dmaa' "
            "(known: dma, tc, smem_rd)");
}

TEST(problem_reader, unknown_op_in_edge) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b"})", R"([{"from": "a", "to": "b"},
  {"from": "b", "to": "bb"}])")),
            "loop.json:5: edges[1].to: unknown op 'bb'");
}

TEST(problem_reader, duplicate_op) {
  EXPECT_EQ(error_of(with_op(R"({"name": "a", "latency": 2})")),
            "loop.json:3: ops[1].name: duplicate op 'a' (first defined at line 2)");
}

TEST(problem_reader, negative_latency) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "latency": -2})")),
            "loop.json:3: ops[1].latency: expected a non-negative integer, got '-2'");
}

TEST(problem_reader, negative_distance) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b"})", R"([{"from": "a", "to": "b", "distance": -1}])")),
            "loop.json:4: edges[0].distance: expected a non-negative integer, got '-1'");
}

TEST(problem_reader, string_latency) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "latency": "4"})")),
            "loop.json:3: ops[1].latency: expected a non-negative integer, got the string "
            "\"4\"");
}

TEST(problem_reader, fractional_latency) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "latency": 1.5})")),
            "loop.json:3: ops[1].latency: expected a non-negative integer, got '1.5'");
}

TEST(problem_reader, huge_latency) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "latency": 99999999999999999999})")),
            "loop.json:3: ops[1].latency: value '99999999999999999999' is out of range");
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "latency": 4294967296})")),
            "loop.json:3: ops[1].latency: value '4294967296' is out of range (at most "
            "2147483647)");
}

TEST(problem_reader, missing_ops) {
  EXPECT_EQ(error_of("{\"resources\": {\"dma\": 1},\n \"edges\": []}"),
            "loop.json:1: missing required key 'ops'");
}

TEST(problem_reader, missing_resources) {
  EXPECT_EQ(error_of("{\"ops\": []}"), "loop.json:1: missing required key 'resources'");
}

TEST(problem_reader, ops_not_a_list) {
  EXPECT_EQ(error_of("{\"resources\": {},\n \"ops\": {\"name\": \"a\"}}"),
            "loop.json:2: ops: expected a list, got a map");
}

TEST(problem_reader, unknown_key_in_op) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "latncy": 2})")),
            "loop.json:3: ops[1].latncy: unknown key 'latncy' (known: name, latency, "
            "reservation, max_depth, gid, leader_gid)");
}

TEST(problem_reader, unknown_key_in_edge) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b"})", R"([{"from": "a", "to": "b", "dist": 1}])")),
            "loop.json:4: edges[0].dist: unknown key 'dist' (known: from, to, latency, "
            "distance)");
}

TEST(problem_reader, unknown_top_level_key) {
  EXPECT_EQ(error_of("{\"resources\": {},\n \"op\": []}"),
            "loop.json:2: op: unknown key 'op' (known: resources, attributes, ops, edges)");
}

TEST(problem_reader, unknown_attribute) {
  EXPECT_EQ(error_of("{\"resources\": {}, \"ops\": [],\n \"attributes\": {\"force_serial\": "
                     "true}}"),
            "loop.json:2: attributes.force_serial: unknown key 'force_serial' (known: "
            "force_serial_execution, serial_threshold)");
}

TEST(problem_reader, attribute_wrong_type) {
  EXPECT_EQ(error_of("{\"resources\": {}, \"ops\": [],\n \"attributes\": "
                     "{\"force_serial_execution\": 1}}"),
            "loop.json:2: attributes.force_serial_execution: expected true or false, got '1'");
}

TEST(problem_reader, duplicate_key) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "latency": 1,
 "latency": 2})")),
            "loop.json:4: ops[1].latency: duplicate key 'latency' (first at line 3)");
}

TEST(problem_reader, zero_capacity) {
  EXPECT_EQ(error_of("{\"resources\": {\"dma\": 0}, \"ops\": []}"),
            "loop.json:1: resources.dma: expected a positive integer, got '0'");
}

TEST(problem_reader, missing_op_name) {
  EXPECT_EQ(error_of(with_op(R"({"latency": 2})")),
            "loop.json:3: ops[1]: missing required key 'name'");
}

TEST(problem_reader, empty_op_name) {
  EXPECT_EQ(error_of(with_op(R"({"name": ""})")), "loop.json:3: ops[1].name: the name is empty");
}

TEST(problem_reader, edge_without_to) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b"})", R"([{"from": "a"}])")),
            "loop.json:4: edges[0]: missing required key 'to'");
}

TEST(problem_reader, reservation_not_a_list) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "reservation": {"dma": 1}})")),
            "loop.json:3: ops[1].reservation: expected a list, got a map");
}

TEST(problem_reader, reservation_cycle_not_a_map) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "reservation": [["dma"]]})")),
            "loop.json:3: ops[1].reservation[0]: expected a map, got a list");
}

TEST(problem_reader, top_level_not_a_map) {
  EXPECT_EQ(error_of("[1, 2]"), "loop.json:1: expected a map at the top level, got a list");
  EXPECT_EQ(error_of(""), "loop.json: expected a map at the top level, got nothing");
}

TEST(problem_reader, over_capacity_use_from_check_problem) {
  EXPECT_EQ(error_of(with_op(R"({"name": "b", "reservation": [{}, {"dma": 2}]})")),
            "problem_error: loop.json:3: op 'b' uses 2 of 'dma' at cycle offset 1 but the "
            "pool has 1: no II can seat it");
}

TEST(problem_reader, malformed_json) {
  EXPECT_EQ(error_of("{\"resources\": {\"dma\": 1},\n \"ops\": [{\"name\": \"a\"}\n}"),
            "loop.json:3: malformed JSON: illegal flow end");
}

TEST(problem_reader, yaml_error_names_the_line) {
  EXPECT_EQ(error_of("resources:\n  dma: 1\nops:\n  - name: a\n    latency: x\n"),
            "loop.json:5: ops[0].latency: expected a non-negative integer, got 'x'");
}

/// Truncated and mangled versions of a valid file never crash: they parse or
/// throw one of the two documented errors.
TEST(problem_reader, never_crashes_on_mangled_input) {
  auto survives = [](const std::string& text) {
    try {
      read_problem_text(text, "m.json");
    } catch (const config_error&) {
    } catch (const problem_error&) {
    }
  };
  for (std::size_t n = 0; n <= k_loop.size(); ++n) {
    survives(k_loop.substr(0, n));
    std::string dropped = k_loop;
    dropped.erase(n, 1);
    survives(dropped);
  }
  SUCCEED();
}

} // namespace
} // namespace kb::sched
